import { InvalidSessionRecordError } from '../errors/session-errors.js';
import { isObject } from '../validation/option-checks.js';

/**
 * One step of a stored-envelope upgrade, from schema version `from` to `to`. `migrate`
 * receives the whole stored envelope (plain JSON) and returns the envelope in the `to` shape;
 * the registry stamps `schemaVersion: to` on the result.
 *
 * @example
 * const renameData: RecordMigration = {
 *   from: 0,
 *   to: 1,
 *   migrate: (env) => {
 *     const { data, ...rest } = env as { data: unknown };
 *     return { ...rest, record: data };
 *   },
 * };
 */
export interface RecordMigration {
  from: number;
  to: number;
  migrate(envelope: unknown): unknown;
}

/** Ordered migrations up to a target schema version. Reads never write the upgraded result. */
export class RecordMigrationRegistry {
  private readonly byFrom = new Map<number, RecordMigration>();

  /** @param target The schema version `upgrade` brings envelopes to. */
  constructor(
    readonly target: number,
    migrations: readonly RecordMigration[] = [],
  ) {
    for (const migration of migrations) this.register(migration);
  }

  /** Adds a step. Throws `TypeError` for a step that does not move forward or a duplicate `from`. */
  register(migration: RecordMigration): this {
    const { from, to } = migration;
    if (!Number.isInteger(from) || !Number.isInteger(to) || from < 0 || to <= from) {
      throw new TypeError(
        `A migration must go from an integer version to a later one (${from} -> ${to})`,
      );
    }
    if (to > this.target) {
      throw new TypeError(
        `Record migration ${from} -> ${to} goes past schema version ${this.target}`,
      );
    }
    if (this.byFrom.has(from)) {
      throw new TypeError(`A migration from schema version ${from} is already registered`);
    }
    this.byFrom.set(from, migration);
    return this;
  }

  /**
   * Applies the steps from the envelope's `schemaVersion` up to the target. A missing step or a
   * failing migration throws `InvalidSessionRecordError` naming `key`.
   */
  upgrade(key: string, envelope: unknown): unknown {
    let current = envelope;
    let version = this.versionOf(key, current);
    while (version < this.target) {
      const step = this.byFrom.get(version);
      if (!step) {
        throw new InvalidSessionRecordError(key, `no migration from schema version ${version}`);
      }
      let next: unknown;
      try {
        next = step.migrate(current);
      } catch (error) {
        throw new InvalidSessionRecordError(
          key,
          `migration ${step.from} -> ${step.to} failed: ${String(error)}`,
          { cause: error },
        );
      }
      if (!isObject(next)) {
        throw new InvalidSessionRecordError(
          key,
          `migration ${step.from} -> ${step.to} returned no object`,
        );
      }
      current = { ...next, schemaVersion: step.to };
      version = step.to;
    }
    return current;
  }

  private versionOf(key: string, envelope: unknown): number {
    const version = isObject(envelope) ? envelope['schemaVersion'] : undefined;
    if (typeof version !== 'number' || !Number.isInteger(version) || version < 0) {
      throw new InvalidSessionRecordError(key, 'missing or invalid schemaVersion');
    }
    return version;
  }
}
