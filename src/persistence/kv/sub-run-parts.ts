import { InvalidSessionRecordError } from '../../errors/session-errors.js';
import { isObject } from '../../validation/option-checks.js';
import type { KvBackend, KvOp, KvReader } from './backends/kv-backend.js';
import { openValue, sealValue } from '../sealed-value.js';
import { decodeSubRun, encodeSubRun } from './sub-run-encoding.js';
import * as keys from '../session-keys.js';
import type { SessionKey } from '../session-store.js';

/**
 * Sub-agent runs stored apart from the session record. A sub-agent's run is a child of its
 * parent run's actor, so its snapshot nests in the session snapshot; stored inside the record,
 * every step of a child would rewrite its ancestors' runs too. Instead, each sub-agent run's
 * snapshot (its own sub-runs split out in turn) is a sealed value of its own, the record
 * keeping a `{ src: 'subRun', part: <runId> }` reference in its place; a save writes only the
 * parts that changed and deletes those that left the tree. A part leaves out what its parent
 * run already holds (`sub-run-encoding.ts`). Loads put the tree back together,
 * so nothing above the store sees the split.
 */

type Json = Record<string, unknown>;
type Entry = { src?: unknown; part?: unknown; snapshot?: Json };

/** The children of a run snapshot, if it has any. */
function childrenOf(run: unknown): Record<string, Entry> | undefined {
  return isObject(run) && isObject(run['children'])
    ? (run['children'] as Record<string, Entry>)
    : undefined;
}

/** The run snapshot a session snapshot nests (`children.run.snapshot`). */
function rootRun(snapshot: unknown): unknown {
  const run = childrenOf(snapshot)?.['run'];
  return isObject(run) ? run.snapshot : undefined;
}

/** A run snapshot with its sub-runs replaced by references, collecting them into `parts`. */
function slimRun(run: unknown, parts: Map<string, string>): unknown {
  const children = childrenOf(run);
  if (!children || !Object.values(children).some((c) => isObject(c) && c.src === 'subRun')) {
    return run;
  }
  const slim: Record<string, unknown> = {};
  for (const [id, child] of Object.entries(children)) {
    const runId = isObject(child) && child.src === 'subRun' ? runIdOf(child.snapshot) : undefined;
    if (runId === undefined) {
      slim[id] = child;
      continue;
    }
    const entry = { ...child, snapshot: slimRun(child.snapshot, parts) };
    parts.set(runId, JSON.stringify(encodeSubRun(entry, contextOf(run), runId)));
    slim[id] = { src: 'subRun', part: runId };
  }
  return { ...(run as Json), children: slim };
}

const contextOf = (run: unknown): unknown => (isObject(run) ? run['context'] : undefined);

function runIdOf(run: unknown): string | undefined {
  const context = contextOf(run);
  const runId = isObject(context) ? context['runId'] : undefined;
  return typeof runId === 'string' && runId.length > 0 ? runId : undefined;
}

/**
 * A session snapshot with its sub-agent runs split out: the slim snapshot for the record and
 * the JSON of each part by run id (none when the run has no sub-agent run in flight).
 */
export function splitSubRuns(snapshot: unknown): { slim: unknown; parts: Map<string, string> } {
  const parts = new Map<string, string>();
  const run = rootRun(snapshot);
  const slimmed = slimRun(run, parts);
  if (slimmed === run) return { slim: snapshot, parts };
  const children = childrenOf(snapshot)!;
  return {
    slim: {
      ...(snapshot as Json),
      children: { ...children, run: { ...children['run'], snapshot: slimmed } },
    },
    parts,
  };
}

/** The run ids of the parts a slim run snapshot refers to, all the way down. */
function refsOf(run: unknown, found: string[]): void {
  for (const child of Object.values(childrenOf(run) ?? {})) {
    if (isObject(child) && child.src === 'subRun' && typeof child.part === 'string') {
      found.push(child.part);
    }
  }
}

/**
 * The stored parts of a slim record's snapshot, read and checked (sealed under their key), and
 * the snapshot put back together. A missing or damaged part is `InvalidSessionRecordError`
 * naming its key. Returns the parts read (raw, by run id) too.
 */
export async function joinSubRuns(
  backend: KvBackend,
  key: SessionKey,
  slim: unknown,
): Promise<{ snapshot: unknown; raws: Map<string, string> }> {
  const raws = new Map<string, string>();
  const scope = { sessionId: key.sessionId };
  const join = async (run: unknown): Promise<unknown> => {
    const refs: string[] = [];
    refsOf(run, refs);
    if (!refs.length) return run;
    const partKeys = refs.map((runId) => keys.subRunKey(key, runId));
    const values = await Promise.all(partKeys.map((k) => backend.get(k)));
    const byRun = new Map<string, unknown>();
    for (const [i, runId] of refs.entries()) {
      const partKey = partKeys[i]!;
      const raw = values[i];
      if (raw === undefined) {
        throw new InvalidSessionRecordError(partKey, 'the stored sub-agent run is missing', scope);
      }
      const { json } = openValue(partKey, raw, scope);
      let part: unknown;
      try {
        part = JSON.parse(json);
      } catch (cause) {
        throw new InvalidSessionRecordError(partKey, 'the stored sub-agent run is not JSON', {
          ...scope,
          cause,
        });
      }
      const entry = decodeSubRun(part, contextOf(run), runId);
      if (!entry || runIdOf(entry['snapshot']) !== runId) {
        throw new InvalidSessionRecordError(
          partKey,
          'the stored sub-agent run is not the one the record refers to',
          scope,
        );
      }
      raws.set(runId, raw);
      byRun.set(runId, { ...entry, snapshot: await join(entry['snapshot']) });
    }
    const children: Record<string, unknown> = {};
    for (const [id, child] of Object.entries(childrenOf(run)!)) {
      children[id] =
        isObject(child) && child.src === 'subRun' && typeof child.part === 'string'
          ? byRun.get(child.part)
          : child;
    }
    return { ...(run as Json), children };
  };
  const run = rootRun(slim);
  const joined = await join(run);
  if (joined === run) return { snapshot: slim, raws };
  const top = childrenOf(slim)!;
  return {
    snapshot: { ...(slim as Json), children: { ...top, run: { ...top['run'], snapshot: joined } } },
    raws,
  };
}

/**
 * The ops that store `parts` (sealed), skipping those whose stored value is already `known`,
 * and delete the parts of `previous` that left the tree. Returns the raws now stored.
 */
export function partOps(
  key: SessionKey,
  parts: Map<string, string>,
  known: ReadonlyMap<string, string>,
): { ops: KvOp[]; raws: Map<string, string> } {
  const ops: KvOp[] = [];
  const raws = new Map<string, string>();
  for (const [runId, json] of parts) {
    const partKey = keys.subRunKey(key, runId);
    const raw = sealValue(partKey, json);
    raws.set(runId, raw);
    if (known.get(runId) !== raw) ops.push({ type: 'put', key: partKey, value: raw });
  }
  for (const runId of known.keys()) {
    if (!parts.has(runId)) ops.push({ type: 'del', key: keys.subRunKey(key, runId) });
  }
  return { ops, raws };
}

/** The sub-agent run parts stored for a session (values unknown: each is rewritten). */
export async function storedPartIds(
  backend: KvReader,
  key: SessionKey,
): Promise<Map<string, string>> {
  const parts = new Map<string, string>();
  for await (const partKey of backend.keys(keys.subRunRange(key))) {
    parts.set(decodeURIComponent(partKey.slice(partKey.lastIndexOf('!') + 1)), '');
  }
  return parts;
}
