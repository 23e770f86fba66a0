import type { PersistedSessionSnapshot } from '../machines/schemas/persisted-snapshot-schema.js';

/** The run snapshot a persisted session snapshot nests, as `checkStoredSession` checked it. */
export type StoredRun = NonNullable<PersistedSessionSnapshot['children']['run']>['snapshot'];

/**
 * The run child of a persisted session snapshot, if it holds one. Read before the snapshot is
 * checked too (to decide what a load needs), so it assumes nothing about the shape.
 */
export function storedRun<T = StoredRun>(snapshot: unknown): T | undefined {
  return (snapshot as { children?: { run?: { snapshot?: T } } } | null)?.children?.run?.snapshot;
}
