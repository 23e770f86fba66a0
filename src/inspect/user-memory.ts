import { openMemory } from '../memory/open-memory.js';
import type { Memory, WorkingMemoryRecord } from '../persistence/memory-store.js';
import type { SessionRuntime } from '../sessions/session-runtime.js';
import { HttpError } from './http-io.js';

/** The most memories one page of `/api/memory` serves. */
export const MAX_MEMORY_PAGE = 200;

/** The query names of `/api/memory` (`user` and `token` are read by the server itself). */
const NAMES: ReadonlySet<string> = new Set([
  'resource',
  'kind',
  'cursor',
  'limit',
  'user',
  'token',
]);

const bad = (message: string) => new HttpError(400, 'BAD_REQUEST', message);

/** One scope of the user's (their own, or a resource), with its working memory. */
export interface MemoryScopeView {
  /** Absent: the user's own scope. */
  resource?: string | undefined;
  memories: number;
  workingMemory: WorkingMemoryRecord | null;
}

/** A user's memory as the inspector shows it. */
export interface UserMemoryView {
  userId: string | null;
  /** The resource the page of memories is of (absent: all of the user's memory). */
  resource?: string | undefined;
  /** Their scopes: their own first, then by resource name. */
  scopes: MemoryScopeView[];
  /** A page of memories, newest first. */
  memories: Memory[];
  nextCursor?: string | undefined;
}

/**
 * A user's memory (the user the server admitted: the partition holds): their scopes with how
 * many memories each holds and its working memory, and a page of their memories (of
 * `resource`, of `kind`; `limit` default 50, at most {@link MAX_MEMORY_PAGE}; `cursor` from the
 * page before). A store without memory is `MEMORY_UNSUPPORTED`; an unknown or repeated name, a
 * bad number, kind, resource or cursor a 400.
 */
export async function userMemory(
  runtime: SessionRuntime,
  userId: string | undefined,
  params: URLSearchParams,
): Promise<UserMemoryView> {
  const seen = new Set<string>();
  for (const name of params.keys()) {
    if (!NAMES.has(name)) throw bad(`Unknown query parameter "${name}"`);
    if (seen.has(name)) throw bad(`The query parameter "${name}" is given twice`);
    seen.add(name);
  }
  const resource = params.get('resource') ?? undefined;
  const kind = params.get('kind') ?? undefined;
  if (kind !== undefined && kind !== 'fact' && kind !== 'message') {
    throw bad('"kind" must be fact or message');
  }
  const rawLimit = params.get('limit');
  const limit = rawLimit === null ? 50 : Number(rawLimit);
  if (rawLimit === '' || !Number.isSafeInteger(limit) || limit < 1 || limit > MAX_MEMORY_PAGE) {
    throw bad(`"limit" must be an integer from 1 to ${MAX_MEMORY_PAGE}`);
  }
  const cursor = params.get('cursor') ?? undefined;
  const memory = openMemory(runtime.store);
  const user = userId === undefined ? {} : { userId };
  const page = await memory.list({
    ...user,
    ...(resource === undefined ? {} : { resource }),
    ...(kind === undefined ? {} : { kind }),
    ...(cursor === undefined ? {} : { cursor }),
    limit,
  });
  const scopes: MemoryScopeView[] = [];
  for (const scope of await memory.resources(user)) {
    const working = scope.workingMemory
      ? await memory.workingMemory({ ...user, resource: scope.resource })
      : undefined;
    scopes.push({
      ...(scope.resource === undefined ? {} : { resource: scope.resource }),
      memories: scope.memories,
      workingMemory: working ?? null,
    });
  }
  return {
    userId: userId ?? null,
    ...(resource === undefined ? {} : { resource }),
    scopes,
    memories: page.memories,
    ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }),
  };
}
