import { SessionConflictError, SessionNotFoundError } from '../errors/session-errors.js';
import type {
  LoadedSession,
  SessionKey,
  SessionRecord,
  SessionStore,
} from '../persistence/session-store.js';
import { emptyTotals } from '../persistence/session-store.js';
import type { AgentOptions } from '../definition/agent-options.js';
import type { AuditTrail } from '../audit/audit-trail.js';
import { upgradeRecord } from '../runs/machine-upgrade.js';
import type { SessionEventHub } from './session-events.js';
import { checkStoredSession } from '../runs/stored-session-check.js';

/**
 * How a runtime reads a session before it acts or answers: loaded, brought to this machine
 * version and checked, reporting `SessionLoaded` or `SessionLoadFailed`; created (with its
 * `create` audit entry) when an action may create it.
 */
export class SessionLoader {
  constructor(
    private readonly store: SessionStore,
    private readonly options: AgentOptions<unknown>,
    private readonly hub: SessionEventHub,
  ) {}

  /** Loads and checks a session for reading (record, listing entry and snapshot). */
  async load(key: SessionKey): Promise<SessionRecord> {
    return this.loaded(key, async () => {
      const record = this.upgraded(key, await this.store.load(key));
      checkStoredSession(key, record);
      return record;
    });
  }

  /**
   * Loads and checks a session and its owner's totals for an action (or creates it). `known`
   * is the record the runtime's session cache holds: when the store returns it as is (it still
   * holds exactly that value), it was checked when it was loaded or built by this runtime.
   */
  loadForUpdate(
    key: SessionKey,
    create: boolean,
    audit: AuditTrail | undefined,
    newRecord: (key: SessionKey) => Omit<SessionRecord, 'version'>,
    known?: SessionRecord,
  ): Promise<LoadedSession> {
    // Callbacks, not nested async functions: a message's load costs the store's promise and two.
    const checked = (loaded: LoadedSession): LoadedSession => {
      const record =
        known !== undefined && loaded.record === known ? known : this.upgraded(key, loaded.record);
      if (record !== known) checkStoredSession(key, record);
      this.hub.emit('SessionLoaded', { key, version: record.version });
      return record === loaded.record ? loaded : { ...loaded, record };
    };
    return attempt(() => this.store.loadForUpdate(key, known))
      .then(checked)
      .catch((error: unknown) => {
        this.hub.emit('SessionLoadFailed', { key, error });
        if (!create || !(error instanceof SessionNotFoundError)) throw error;
        return this.created(key, audit, newRecord);
      });
  }

  /** Creates the session an action may create (`loadForUpdate` found none). */
  private async created(
    key: SessionKey,
    audit: AuditTrail | undefined,
    newRecord: (key: SessionKey) => Omit<SessionRecord, 'version'>,
  ): Promise<LoadedSession> {
    try {
      const created = audit ? [audit.action('create', 'session created')] : [];
      const record = await this.store.create(newRecord(key), [], created);
      // `create` checked the owner's totals before writing; read them only for a user budget.
      const userUsage = this.options.userBudget
        ? await this.store.userUsage(key.userId)
        : emptyTotals();
      return { record, userUsage };
    } catch (error) {
      if (error instanceof SessionConflictError) {
        return this.loadForUpdate(key, false, undefined, newRecord);
      }
      throw error;
    }
  }

  /** The record brought to this machine version (see `machine-upgrade.ts`). */
  private upgraded(key: SessionKey, record: SessionRecord): SessionRecord {
    return upgradeRecord(key, record, this.options.snapshotMigrations);
  }

  /** Runs a load, reporting `SessionLoaded` or `SessionLoadFailed`. */
  private async loaded<T extends SessionRecord | LoadedSession>(
    key: SessionKey,
    read: () => Promise<T>,
  ): Promise<T> {
    try {
      const result = await read();
      const record: SessionRecord = 'record' in result ? result.record : result;
      this.hub.emit('SessionLoaded', { key, version: record.version });
      return result;
    } catch (error) {
      this.hub.emit('SessionLoadFailed', { key, error });
      throw error;
    }
  }
}

/** `read()`, a synchronous throw turned into a rejection (as in an async function). */
function attempt<T>(read: () => Promise<T>): Promise<T> {
  try {
    return read();
  } catch (error) {
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- rethrown as thrown
    return Promise.reject(error);
  }
}
