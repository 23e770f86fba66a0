import type { HistorySource } from '../context-window/context-window.js';
import type { Item } from '../items/item.js';
import type { RecalledMemoryFact } from '../machines/step-actor-io.js';
import type { MemoryInput, MemoryMatch } from '../persistence/memory-store.js';
import type { RecallOptions } from './memory-options.js';
import type { ScopedMemory } from './scoped-memory.js';

/** What recall added to a request: its items with the memories in, and the facts journaled. */
export interface Recalled {
  items: Item[];
  recalled: RecalledMemoryFact[];
  /** Where the memories' message is among `items` (absent: none recalled). */
  recalledAt?: number | undefined;
}

/** A message of the history recall keeps as a memory. */
interface Said {
  position: number;
  role: 'user' | 'assistant';
  text: string;
}

/** What one session's recall remembers between model calls in this process. */
export interface RecallCache {
  /** Positions of the session's history already kept as memories. */
  kept: Set<number>;
  /** The newest user message embedded, and its vector (the query of the next calls too). */
  query?: { position: number; vector: Float32Array } | undefined;
}

/** A user message's text (its text parts joined); `undefined` when it has none. */
function textOf(item: Item | undefined): string | undefined {
  if (!item || item.type !== 'message') return undefined;
  const content = item.content;
  if (typeof content === 'string') return content.trim() === '' ? undefined : content;
  const text = content
    .flatMap((p) => (p.type === 'text' ? [p.text] : []))
    .join('\n')
    .trim();
  return text === '' ? undefined : text;
}

/**
 * The messages recall keeps before a model call: the newest user message, and (with
 * `'assistant'` in `roles`) the answers between the user message before it and it. Reads back
 * from the end of the history, about one exchange.
 */
function newestSaid(history: HistorySource, from: number, roles: readonly string[]): Said[] {
  const said: Said[] = [];
  let users = 0;
  for (let at = history.length - 1; at >= from && users < 2; at--) {
    const item = history.at(at);
    if (item?.type !== 'message') continue;
    if (item.role === 'user') {
      users++;
      const text = textOf(item);
      if (users === 1 && text !== undefined) said.push({ position: at, role: 'user', text });
    } else if (item.role === 'assistant' && users === 1 && roles.includes('assistant')) {
      // an answer before the newest user message (and after the one before it)
      const text = textOf(item);
      if (text !== undefined) said.push({ position: at, role: 'assistant', text });
    }
  }
  return said.reverse();
}

/** The system message the recalled memories reach the model in, most similar first. */
export function recallMessage(matches: readonly RecalledMemoryFact[]): Item {
  const lines = matches.map((m) => {
    const when = new Date(m.at).toISOString().slice(0, 16).replace('T', ' ');
    const source = m.sessionId === undefined ? '' : `, conversation ${m.sessionId}`;
    return `- [${when} UTC${source}] ${m.text}`;
  });
  return {
    type: 'message',
    role: 'system',
    content: [
      'Memories from earlier conversations with this user, most relevant first (use them only if they help):',
      ...lines,
    ].join('\n'),
  };
}

/**
 * Recall before one model call of a session's run, as a context-window strategy: the newest user
 * message (and, by `roles`, the answers before it) is kept as a memory of the scope, under an id
 * of its session and position so a repeat keeps one; the scope's memories of *other* sessions
 * most similar to it join the request as one system message just before it.
 */
export async function recallInto(
  memory: ScopedMemory,
  options: Required<RecallOptions>,
  request: { items: Item[]; history: HistorySource; from: number; sessionId: string; now: number },
  cache: RecallCache,
  signal: AbortSignal,
): Promise<Recalled> {
  const said = newestSaid(request.history, request.from, options.roles);
  const newest = said.find((s) => s.role === 'user');
  if (!newest) return { items: request.items, recalled: [] };
  const embedder = memory.embedder();
  const fresh = said.filter((s) => !cache.kept.has(s.position));
  const reuse = cache.query?.position === newest.position ? cache.query.vector : undefined;
  const toEmbed = reuse ? fresh.filter((s) => s !== newest) : fresh;
  if (!reuse && !toEmbed.includes(newest)) toEmbed.push(newest);
  const { vectors } = toEmbed.length
    ? await memory.embed(
        embedder,
        toEmbed.map((s) => s.text),
        signal,
      )
    : { vectors: [] as Float32Array[] };
  const vectorOf = new Map(toEmbed.map((s, i) => [s.position, vectors[i]!]));
  const query = reuse ?? vectorOf.get(newest.position)!;
  cache.query = { position: newest.position, vector: query };
  const kept: Omit<MemoryInput, 'userId' | 'resource'>[] = fresh.map((s) => ({
    id: `msg:${request.sessionId}:${s.position}`,
    kind: 'message',
    role: s.role,
    text: s.text,
    sessionId: request.sessionId,
    position: s.position,
    at: request.now,
    model: embedder.name,
    vector: vectorOf.get(s.position)!,
  }));
  if (kept.length) await memory.keep(kept);
  for (const s of fresh) cache.kept.add(s.position);
  signal.throwIfAborted();
  const matches = await memory.searchVector(embedder, query, {
    topK: options.topK,
    minScore: options.minScore,
    excludeSessionId: request.sessionId,
  });
  if (matches.length === 0) return { items: request.items, recalled: [] };
  const recalled = matches.map(fact);
  const at = lastUserMessage(request.items);
  const items = [...request.items];
  items.splice(at, 0, recallMessage(recalled));
  return { items, recalled, recalledAt: at };
}

function fact({ memory, score }: MemoryMatch): RecalledMemoryFact {
  return {
    id: memory.id,
    score,
    kind: memory.kind,
    text: memory.text,
    at: memory.at,
    ...(memory.sessionId === undefined ? {} : { sessionId: memory.sessionId }),
    ...(memory.resource === undefined ? {} : { resource: memory.resource }),
  };
}

/** Where the newest user message is among `items` (their end when there is none). */
function lastUserMessage(items: readonly Item[]): number {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i]!;
    if (item.type === 'message' && item.role === 'user') return i;
  }
  return items.length;
}
