import type { PersistedSessionSnapshot } from '../machines/schemas/persisted-snapshot-schema.js';
import type { SessionRecord } from '../persistence/session-store.js';

/**
 * The metadata a run's tools read from `getRunContext().metadata`, merged per key (later
 * wins): the session's metadata (`writeMetadata`), then the metadata stored with the session's
 * current run, then the metadata of this call (a resume's overrides the stored run's, for
 * that resume only). For a new run the stored run's is absent and the call's is the run's.
 */
export function runMetadata(
  record: SessionRecord,
  call: Readonly<Record<string, unknown>> | undefined,
): Record<string, unknown> {
  const { config, currentRun } = (record.snapshot as PersistedSessionSnapshot).context;
  return { ...config.metadata, ...currentRun?.metadata, ...call };
}
