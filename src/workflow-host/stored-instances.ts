import type { AnyMachineSnapshot, AnyStateMachine } from 'xstate';
import type { SessionKey, SessionRecord, SessionStore } from '../persistence/session-store.js';
import { SessionNotFoundError } from '../errors/session-errors.js';
import {
  EventNotAcceptedError,
  WorkflowCancelledError,
  WorkflowDefinitionChangedError,
  WorkflowMismatchError,
  WorkflowNotFoundError,
} from '../errors/workflow-errors.js';
import { acceptedEvents, definitionChanges, type DefinitionShape } from './machine-definition.js';
import { readInstanceSnapshot, type HostMeta, type InstanceSnapshot } from './instance-record.js';
import type { InstanceCommand } from './instance-command.js';

/** A migration of a stored machine snapshot from one `version` to the next. */
export type WorkflowMigration = (snapshot: Record<string, unknown>) => Record<string, unknown>;

/** The definition stored instances are read against. */
export interface StoredDefinition {
  name: string;
  /** The machine with the host's durable actors provided. */
  machine: AnyStateMachine;
  shape: DefinitionShape;
  version: number;
  /** `migrations[n]` turns a snapshot saved by version `n` into one of version `n + 1`. */
  migrations: Readonly<Record<number, WorkflowMigration>>;
  store: SessionStore;
}

/**
 * Reads stored instances of one workflow and checks them before anything runs: the record is
 * one of this workflow's (`WorkflowNotFoundError`, `WorkflowMismatchError`), its snapshot is
 * whole (`InvalidSessionRecordError`) and was saved by this definition, or by an older version
 * that its migrations bring to this one (`WorkflowDefinitionChangedError` naming what changed).
 */
export class StoredInstances {
  constructor(private readonly definition: StoredDefinition) {}

  /** The stored record of instance `id`, checked to be one of this workflow's. */
  async read(key: SessionKey, id: string): Promise<SessionRecord> {
    let record: SessionRecord;
    try {
      record = await this.definition.store.load(key);
    } catch (error) {
      if (error instanceof SessionNotFoundError) throw new WorkflowNotFoundError(id);
      throw error;
    }
    if (record.workflow !== this.definition.name) {
      throw new WorkflowMismatchError(id, this.definition.name, record.workflow);
    }
    return record;
  }

  /** The record's snapshot, checked against this definition (migrated from an older version). */
  checked(key: SessionKey, id: string, record: SessionRecord): InstanceSnapshot {
    const stored = readInstanceSnapshot(key.sessionId, record.snapshot);
    const { shape, version, migrations } = this.definition;
    const meta = stored.host;
    if (meta.version > version) {
      throw new WorkflowDefinitionChangedError(id, [
        `saved by version ${meta.version} of the workflow, this is version ${version}`,
      ]);
    }
    let machine = stored.machine;
    if (meta.version < version) {
      for (let v = meta.version; v < version; v++) {
        const migrate = migrations[v];
        if (!migrate) {
          throw new WorkflowDefinitionChangedError(id, [
            `no migration from version ${v} to ${v + 1}`,
          ]);
        }
        machine = migrate(machine);
      }
    } else if (meta.fingerprint !== shape.fingerprint) {
      throw new WorkflowDefinitionChangedError(id, definitionChanges(meta.states, shape.states));
    }
    this.resolve(id, machine);
    const host: HostMeta = {
      ...meta,
      version,
      fingerprint: shape.fingerprint,
      states: shape.states,
    };
    return { format: 1, machine, host };
  }

  /**
   * Refuses an event before it is queued (nothing stored changes) when the instance's state
   * (`live`, else the stored one) does not accept it; false when it was applied before (same
   * `eventId`): nothing to do.
   */
  accepts(
    id: string,
    record: SessionRecord,
    stored: InstanceSnapshot,
    live: { meta: HostMeta; snapshot: AnyMachineSnapshot } | undefined,
    command: InstanceCommand & { kind: 'event' },
  ): boolean {
    const meta = live?.meta ?? stored.host;
    if (command.eventId !== undefined && meta.events.includes(command.eventId)) return false;
    if (meta.cancelled) throw new WorkflowCancelledError(id);
    const snapshot = live?.snapshot ?? this.resolve(id, stored.machine);
    const active = record.status === 'active' && snapshot.status === 'active';
    if (!active || !snapshot.can(command.event)) {
      const accepted = active ? acceptedEvents(snapshot) : [];
      throw new EventNotAcceptedError(id, command.event.type, snapshot.value, accepted);
    }
    return true;
  }

  /** The machine's snapshot for a stored state (a state this machine lacks: refused). */
  private resolve(id: string, machine: InstanceSnapshot['machine']): AnyMachineSnapshot {
    try {
      return this.definition.machine.resolveState({
        value: machine.value as never,
        context: machine.context,
      });
    } catch (error) {
      throw new WorkflowDefinitionChangedError(id, [
        `its state ${JSON.stringify(machine.value)} is not one of this machine (${String(error)})`,
      ]);
    }
  }
}
