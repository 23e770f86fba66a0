import { RestoreFailedError } from '../errors/session-errors.js';
import { MACHINE_VERSION } from '../machines/session-machine.js';
import type { SessionKey, SessionRecord } from '../persistence/session-store.js';
import { storedRun } from './stored-run.js';

/**
 * Upgrades a persisted session snapshot written by the machines of version `from` (the
 * record's `machineVersion`, e.g. `session-1/run-1`) to this version's machines. Needed only
 * for a snapshot that holds a run: a session without one restores as it is.
 *
 * @example
 * const renamedState: SnapshotMigration = {
 *   from: 'session-1/run-1',
 *   migrate: (snapshot) => renameRunState(snapshot, 'tools', 'toolCalls'),
 * };
 * new Agent({ ..., snapshotMigrations: [renamedState] });
 */
export interface SnapshotMigration {
  from: string;
  migrate(snapshot: unknown): unknown;
}

/**
 * A record written by other machine versions, brought to this one before it is checked: a
 * registered migration for its version runs first; without one, a session without a run
 * (idle, suspended, completed, failed, deleted) keeps its snapshot, whose session states and
 * context every version shares; a session with a run raises `RestoreFailedError` naming both
 * versions. The upgraded record is stored with this machine version at its next save.
 */
export function upgradeRecord(
  key: SessionKey,
  record: SessionRecord,
  migrations: readonly SnapshotMigration[] = [],
): SessionRecord {
  const from = record.machineVersion;
  if (from === MACHINE_VERSION) return record;
  const versions = `written by machine version ${from}, this runtime has ${MACHINE_VERSION}`;
  const migration = migrations.find((m) => m.from === from);
  if (migration) {
    let snapshot: unknown;
    try {
      snapshot = migration.migrate(record.snapshot);
    } catch (error) {
      throw new RestoreFailedError(
        key.sessionId,
        `the migration of a snapshot ${versions} threw: ${String(error)}`,
      );
    }
    return { ...record, snapshot, machineVersion: MACHINE_VERSION };
  }
  if (storedRun(record.snapshot) !== undefined) {
    throw new RestoreFailedError(
      key.sessionId,
      `its run snapshot was ${versions}, and no snapshot migration from ${from} is registered`,
    );
  }
  return { ...record, machineVersion: MACHINE_VERSION };
}
