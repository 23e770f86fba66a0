import type { Item } from '../items/item.js';
import type { SessionKey } from '../persistence/session-store.js';
import type { SessionRuntime } from '../sessions/session-runtime.js';
import { HttpError } from './http-io.js';

/** The most history items one page of `/api/sessions/:id/history` serves. */
export const MAX_HISTORY_PAGE = 200;

/** The query names of the history page (`user` and `token` are read by the server itself). */
const NAMES: ReadonlySet<string> = new Set(['before', 'limit', 'user', 'token']);

const bad = (message: string) => new HttpError(400, 'BAD_REQUEST', message);

function integer(
  params: URLSearchParams,
  name: string,
  fallback: number,
  min: number,
  max: number,
) {
  const text = params.get(name);
  const value = text === null ? fallback : Number(text);
  if (text === '' || !Number.isSafeInteger(value) || value < min || value > max) {
    throw bad(`"${name}" must be an integer from ${min} to ${max}`);
  }
  return value;
}

/**
 * A page of a session's history going back: the `limit` items (default 50, at most
 * `MAX_HISTORY_PAGE`) just before position `before` (default: the end), with `from`, the
 * position of the first, and `total`, the history's length; `from` is the next page's
 * `before`, until it is 0. An unknown or repeated name or a bad number is a 400 `BAD_REQUEST`.
 */
export async function historyPage(
  runtime: SessionRuntime,
  key: SessionKey,
  params: URLSearchParams,
): Promise<{ total: number; from: number; items: Item[] }> {
  const seen = new Set<string>();
  for (const name of params.keys()) {
    if (!NAMES.has(name)) throw bad(`Unknown query parameter "${name}"`);
    if (seen.has(name)) throw bad(`The query parameter "${name}" is given twice`);
    seen.add(name);
  }
  const limit = integer(params, 'limit', 50, 1, MAX_HISTORY_PAGE);
  const before = integer(params, 'before', Number.MAX_SAFE_INTEGER, 0, Number.MAX_SAFE_INTEGER);
  const { historyLength: total } = await runtime.getSessionInfo(key);
  const end = Math.min(before, total);
  const from = Math.max(0, end - limit);
  const items = end > from ? await runtime.store.readHistory(key, from, end) : [];
  return { total, from, items };
}
