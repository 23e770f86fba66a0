import type { SessionStatus } from '../persistence/session-store.js';
import { SessionStatusSchema } from '../persistence/session-schemas.js';
import { HttpError } from '../http/http-error.js';
import { LIST_ORDERS, isListCursor, type ListOrder } from '../persistence/entries/list-order.js';

/** What the run filter of the list takes: `waiting` is a run awaiting a human's decision. */
export const RUN_FILTERS = [
  'waiting',
  'running',
  'crashed',
  'interrupted',
  'completed',
  'failed',
  'cancelled',
  'none',
] as const;
export type RunFilter = (typeof RUN_FILTERS)[number];

/**
 * How the list is ordered across pages (the store's list orders: the sessions whose calls wait
 * for a decision always come first; `usage` is the tokens of the session's stored usage).
 */
export const LIST_SORTS = LIST_ORDERS;
export type ListSort = ListOrder;

/** The largest page the list serves. */
export const MAX_LIST_LIMIT = 500;

/** The list's query, checked: every field the page (or a script) may send. */
export interface ListQuery {
  status?: SessionStatus | undefined;
  run?: RunFilter | undefined;
  agent?: string | undefined;
  text?: string | undefined;
  sort: ListSort;
  cursor?: string | undefined;
  limit: number;
}

/** The query names of `/api/sessions` (`user` and `token` are read by the server itself). */
const NAMES: ReadonlySet<string> = new Set([
  'status',
  'run',
  'agent',
  'text',
  'sort',
  'cursor',
  'limit',
  'user',
  'token',
]);

const bad = (message: string) => new HttpError(400, 'BAD_REQUEST', message);

const oneOf = <T extends string>(name: string, value: string, allowed: readonly T[]): T => {
  if (!(allowed as readonly string[]).includes(value)) {
    throw bad(`Unknown ${name} "${value}" (one of: ${allowed.join(', ')})`);
  }
  return value as T;
};

/**
 * The list query of `?status=&run=&agent=&text=&sort=&cursor=&limit=`. An unknown name, a
 * repeated one, an unknown status, run filter or sort, a cursor not of the sort, a limit that is not an integer from 1
 * to `MAX_LIST_LIMIT`, or a text over 200 characters is a 400 `BAD_REQUEST`.
 */
export function listQuery(params: URLSearchParams): ListQuery {
  const seen = new Set<string>();
  for (const name of params.keys()) {
    if (!NAMES.has(name)) throw bad(`Unknown query parameter "${name}"`);
    if (seen.has(name)) throw bad(`The query parameter "${name}" is given twice`);
    seen.add(name);
  }
  const get = (name: string) => params.get(name) || undefined;
  const status = get('status');
  if (status !== undefined && !SessionStatusSchema.safeParse(status).success) {
    throw bad(`Unknown status "${status}"`);
  }
  const run = get('run');
  const sort = get('sort');
  const limitText = params.get('limit');
  const limit = limitText ? Number(limitText) : 50;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT) {
    throw bad(`"limit" must be an integer from 1 to ${MAX_LIST_LIMIT}`);
  }
  const text = get('text')?.trim();
  if (text !== undefined && text.length > 200) throw bad('"text" is longer than 200 characters');
  const agent = get('agent')?.trim();
  if (agent !== undefined && agent.length > 200) throw bad('"agent" is longer than 200 characters');
  const order = sort ? oneOf('sort', sort, LIST_SORTS) : 'id';
  const cursor = get('cursor');
  if (cursor !== undefined && !isListCursor(order, cursor)) {
    throw bad(`"cursor" is not a cursor of the sort "${order}" (take it from a page's nextCursor)`);
  }
  return {
    ...(status ? { status: status as SessionStatus } : {}),
    ...(run ? { run: oneOf('run filter', run, RUN_FILTERS) } : {}),
    ...(agent ? { agent } : {}),
    ...(text ? { text: text.toLowerCase() } : {}),
    sort: order,
    ...(cursor ? { cursor } : {}),
    limit,
  };
}

/** The query names of `/api/workflows`: the list's status, order and paging. */
const WORKFLOW_NAMES: ReadonlySet<string> = new Set([
  'status',
  'sort',
  'cursor',
  'limit',
  'user',
  'token',
]);

/**
 * The workflow list's query, `?status=&sort=&cursor=&limit=`, checked as the session list's
 * (`listQuery`); a session list filter (`run`, `agent`, `text`) is an unknown name, a 400.
 */
export function workflowListQuery(
  params: URLSearchParams,
): Pick<ListQuery, 'status' | 'sort' | 'cursor' | 'limit'> {
  for (const name of params.keys()) {
    if (!WORKFLOW_NAMES.has(name)) throw bad(`Unknown query parameter "${name}"`);
  }
  const { status, sort, cursor, limit } = listQuery(params);
  return { status, sort, cursor, limit };
}
