import { z } from 'zod';
import {
  InvalidSessionRecordError,
  UnsupportedSchemaVersionError,
} from '../errors/session-errors.js';
import { RecordMigrationRegistry, type RecordMigration } from './migrations.js';
import { plainSessionEnvelope } from './plain-records.js';
import {
  SessionInfoSchema,
  checkBeforeWrite,
  encodeStored,
  readStored,
  toSessionInfo,
  validateStored,
} from './session-schemas.js';
import type { SessionRecord } from './session-store.js';

/**
 * Schema version of the stored session envelope written by this version of agentstate.
 * Version 2 put every stored value under an integrity seal (see `sealed-value.ts`); version 1
 * envelopes (agentstate 0.1, unsealed) are upgraded on read by {@link sealMigration}.
 */
export const CURRENT_SCHEMA_VERSION = 2;

/** The last schema version written without an integrity seal. */
const LAST_UNSEALED_VERSION = 1;

/** 1 -> 2 changed how values are framed, not the envelope's shape. */
const sealMigration: RecordMigration = { from: 1, to: 2, migrate: (envelope) => envelope };

/** The record inside the envelope: every SessionRecord field except `machineVersion`. */
export const StoredSessionSchema = z.lazy(() =>
  SessionInfoSchema.unwrap().extend({ snapshot: z.unknown() }),
);

/** What is stored at a session's record key. */
export const SessionEnvelopeSchema = z.lazy(() =>
  z.object({
    schemaVersion: z.literal(CURRENT_SCHEMA_VERSION),
    /** Version of the machine definitions that produced `record.snapshot`. */
    machineVersion: z.string(),
    record: StoredSessionSchema,
  }),
);

export type SessionEnvelope = z.output<typeof SessionEnvelopeSchema>;

/** The envelope of a record about to be written (`SessionRecordCodec.envelope`). */
export type WrittenEnvelope =
  SessionEnvelope | NonNullable<ReturnType<typeof plainSessionEnvelope>>;

/**
 * `JSON.stringify(envelope)`, given the JSON of its record's info (the record but its snapshot:
 * what the listing entry stores, `encodedListing`), so that a save turns those fields into JSON
 * once for both values. The envelope's record holds the same fields in the same order, its
 * snapshot last (`plainStoredSession`, the schema), so the text is the same to the byte.
 */
export function envelopeJson(envelope: WrittenEnvelope, infoJson: string): string {
  const snapshot = JSON.stringify(envelope.record.snapshot) as string | undefined;
  if (snapshot === undefined) return JSON.stringify(envelope); // a field JSON leaves out
  const { schemaVersion, machineVersion } = envelope;
  const head = `{"schemaVersion":${schemaVersion},"machineVersion":${JSON.stringify(machineVersion)}`;
  return `${head},"record":${infoJson.slice(0, -1)},"snapshot":${snapshot}}}`;
}

const SchemaVersionHeader = z.lazy(() =>
  z.object({ schemaVersion: z.number().int().nonnegative() }),
);

/** What `SchemaVersionHeader` accepts as `schemaVersion` (checked first, zod for the error). */
const isSchemaVersion = (value: unknown): value is number =>
  Number.isSafeInteger(value) && (value as number) >= 0;

export interface SessionRecordCodecOptions {
  /**
   * Upgrade steps for envelopes older than schema version 1 (the built-in 1 -> 2 step is
   * always registered).
   */
  migrations?: readonly RecordMigration[] | undefined;
}

/**
 * Encodes session records into sealed, schema-versioned envelopes and decodes them back,
 * checking the seal, validating with zod and running migrations for older envelopes.
 * Decoding never writes anything.
 */
export class SessionRecordCodec {
  readonly migrations: RecordMigrationRegistry;

  constructor(options: SessionRecordCodecOptions = {}) {
    this.migrations = new RecordMigrationRegistry(CURRENT_SCHEMA_VERSION, [
      ...(options.migrations ?? []),
      sealMigration,
    ]);
  }

  /** Throws `TypeError` if the record does not match the schema (a programmer error). */
  encode(key: string, record: SessionRecord): string {
    return encodeStored(key, this.envelope(record));
  }

  /**
   * The envelope `encode` stores for `record`, checked, before it is turned into JSON (the
   * key-value store writes it whole or as its changes since a stored one). Throws `TypeError`
   * if the record does not match the schema.
   */
  envelope(record: SessionRecord): WrittenEnvelope {
    // The record as it is (not copied without `machineVersion`): both checks keep only the
    // stored record's fields, in the schema's order.
    const value = {
      schemaVersion: CURRENT_SCHEMA_VERSION,
      machineVersion: record.machineVersion,
      record,
    };
    return (
      plainSessionEnvelope(value, CURRENT_SCHEMA_VERSION) ??
      checkBeforeWrite('session record', value, SessionEnvelopeSchema)
    );
  }

  /**
   * Throws `InvalidSessionRecordError` (damaged seal, bad JSON, shape mismatch, missing
   * migration) or `UnsupportedSchemaVersionError` (written by a newer agentstate), naming `key`.
   */
  decode(key: string, text: string): SessionRecord {
    const stored = readStored(key, text);
    return this.decodeValue(key, stored.value, stored.legacy);
  }

  /**
   * `decode` of a value already read from its seal (`legacy` if it had none): the schema
   * version, migrations and shape checked the same way, with the same errors.
   */
  decodeValue(key: string, stored: unknown, legacy: boolean): SessionRecord {
    let value = stored;
    const header = value as { schemaVersion?: unknown } | null;
    const schemaVersion =
      typeof header === 'object' && isSchemaVersion(header?.schemaVersion)
        ? header.schemaVersion
        : validateStored(key, value, SchemaVersionHeader).schemaVersion;
    if (schemaVersion > CURRENT_SCHEMA_VERSION) {
      throw new UnsupportedSchemaVersionError(key, schemaVersion, CURRENT_SCHEMA_VERSION);
    }
    if (legacy && schemaVersion > LAST_UNSEALED_VERSION) {
      throw new InvalidSessionRecordError(
        key,
        `the integrity seal is missing (schema version ${schemaVersion} records are sealed)`,
      );
    }
    if (schemaVersion < CURRENT_SCHEMA_VERSION) value = this.migrations.upgrade(key, value);
    const envelope =
      plainSessionEnvelope(value, CURRENT_SCHEMA_VERSION) ??
      validateStored(key, value, SessionEnvelopeSchema);
    return {
      ...toSessionInfo(envelope.record),
      machineVersion: envelope.machineVersion,
      snapshot: envelope.record.snapshot,
    };
  }
}
