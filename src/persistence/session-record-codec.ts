import { z } from 'zod';
import { UnsupportedSchemaVersionError } from '../errors/session-errors.js';
import { MigrationRegistry, type Migration } from './migrations.js';
import {
  SessionInfoSchema,
  checkBeforeWrite,
  parseStoredJson,
  toSessionInfo,
  validateStored,
} from './session-schemas.js';
import type { SessionRecord } from './session-store.js';

/** Schema version of the stored session envelope written by this version of agentstate. */
export const CURRENT_SCHEMA_VERSION = 1;

/** The record inside the envelope: every SessionRecord field except `machineVersion`. */
export const StoredSessionSchema = SessionInfoSchema.extend({ snapshot: z.unknown() });

/** What is stored at a session's record key. */
export const SessionEnvelopeSchema = z.object({
  schemaVersion: z.literal(CURRENT_SCHEMA_VERSION),
  /** Version of the machine definitions that produced `record.snapshot`. */
  machineVersion: z.string(),
  record: StoredSessionSchema,
});

export type SessionEnvelope = z.output<typeof SessionEnvelopeSchema>;

const SchemaVersionHeader = z.object({ schemaVersion: z.number().int().nonnegative() });

export interface SessionRecordCodecOptions {
  /** Upgrade steps for envelopes older than {@link CURRENT_SCHEMA_VERSION}. */
  migrations?: readonly Migration[] | undefined;
}

/**
 * Encodes session records into schema-versioned envelopes and decodes them back, validating
 * with zod and running migrations for older envelopes. Decoding never writes anything.
 */
export class SessionRecordCodec {
  readonly migrations: MigrationRegistry;

  constructor(options: SessionRecordCodecOptions = {}) {
    this.migrations = new MigrationRegistry(CURRENT_SCHEMA_VERSION, options.migrations);
  }

  /** Throws `TypeError` if the record does not match the schema (a programmer error). */
  encode(record: SessionRecord): string {
    const { machineVersion, ...stored } = record;
    const envelope = checkBeforeWrite(
      'session record',
      {
        schemaVersion: CURRENT_SCHEMA_VERSION,
        machineVersion,
        record: stored,
      },
      SessionEnvelopeSchema,
    );
    return JSON.stringify(envelope);
  }

  /**
   * Throws `InvalidSessionRecordError` (bad JSON, shape mismatch, missing migration) or
   * `UnsupportedSchemaVersionError` (written by a newer agentstate), both naming `key`.
   */
  decode(key: string, text: string): SessionRecord {
    let value = parseStoredJson(key, text);
    const { schemaVersion } = validateStored(key, value, SchemaVersionHeader);
    if (schemaVersion > CURRENT_SCHEMA_VERSION) {
      throw new UnsupportedSchemaVersionError(key, schemaVersion, CURRENT_SCHEMA_VERSION);
    }
    if (schemaVersion < CURRENT_SCHEMA_VERSION) value = this.migrations.upgrade(key, value);
    const envelope = validateStored(key, value, SessionEnvelopeSchema);
    return {
      ...toSessionInfo(envelope.record),
      machineVersion: envelope.machineVersion,
      snapshot: envelope.record.snapshot,
    };
  }
}
