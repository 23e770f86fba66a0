import { z } from 'zod';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent, InvalidSessionRecordError, tool, type AnyTool } from '../../../src/index.js';
import type { KvBackend, KvOp } from '../../../src/persistence/kv/backends/kv-backend.js';
import { KvSessionStore } from '../../../src/persistence/kv/kv-session-store.js';
import { LevelBackend } from '../../../src/persistence/kv/backends/level-backend.js';
import { openValue, sealValue } from '../../../src/persistence/sealed-value.js';
import { recordChangesKey, recordKey } from '../../../src/persistence/session-keys.js';
import type {
  SessionKey,
  SessionRecord,
  SessionStore,
} from '../../../src/persistence/session-store.js';
import { commitOn, msg, newSession } from '../../../src/store-contract/contract-fixtures.js';
import { ScriptedModel } from '../../../src/testing.js';
import { lastResult } from '../../helpers/sub-agent-fixtures.js';
import { TempStores } from '../../helpers/temp-store.js';
import { join } from 'node:path';

/**
 * A session record stored as a base plus its changes (`persistence/kv/record-changes.ts`):
 * what `load` returns is what a store writing whole records returns, old whole records still
 * load, a damaged pair is a typed error that changes nothing, and a message writes fewer bytes.
 */

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

/** A LevelDB backend that counts the bytes put under each key prefix (`s!`, `c!`, ...). */
class CountingBackend implements KvBackend {
  readonly bytes = new Map<string, number>();
  constructor(private readonly inner: LevelBackend) {}

  bytesOf(prefix: string): number {
    return this.bytes.get(prefix) ?? 0;
  }
  get(key: string) {
    return this.inner.get(key);
  }
  getMany(keys: string[]) {
    return this.inner.getMany(keys);
  }
  getManySync(keys: string[]) {
    return this.inner.getManySync(keys);
  }
  write(ops: KvOp[]) {
    for (const op of ops) {
      if (op.type !== 'put') continue;
      const prefix = op.key.slice(0, 2);
      const size = Buffer.byteLength(op.key) + Buffer.byteLength(op.value);
      this.bytes.set(prefix, this.bytesOf(prefix) + size);
    }
    return this.inner.write(ops);
  }
  iterate(range: Parameters<KvBackend['iterate']>[0]) {
    return this.inner.iterate(range);
  }
  keys(range: Parameters<KvBackend['keys']>[0]) {
    return this.inner.keys(range);
  }
  stats() {
    return this.inner.stats();
  }
  close() {
    return this.inner.close();
  }
}

/** A key-value store over LevelDB in a temp folder, writing changes or always whole records. */
async function openKv(recordChanges: boolean, folder?: string) {
  const dir = folder ?? (await temps.open()).folder;
  const level = new LevelBackend(join(dir, 'kv'));
  await level.open();
  const backend = new CountingBackend(level);
  const store = new KvSessionStore(backend, { recordChanges });
  return { store, backend, folder: dir };
}

async function dump(store: KvSessionStore): Promise<Map<string, string>> {
  const entries = new Map<string, string>();
  for await (const [key, value] of store.backend.iterate({ gte: '', lt: '\u007f' })) {
    entries.set(key, value);
  }
  return entries;
}

/**
 * `store` with every create and save also applied to `twin` (the same calls, in order), and
 * after each one what both load compared: equal, field order included.
 */
function teeStore(store: KvSessionStore, twin: KvSessionStore, compared: { saves: number }) {
  const same = async (key: SessionKey) => {
    const [a, b] = await Promise.all([store.load(key), twin.load(key)]);
    expect(a).toEqual(b);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    compared.saves += 1;
  };
  return new Proxy(store, {
    get(target, name) {
      if (name === 'create') {
        return async (...args: Parameters<SessionStore['create']>) => {
          const record = await target.create(...args);
          await twin.create(...args);
          await same(record);
          return record;
        };
      }
      if (name === 'save') {
        return async (commit: Parameters<SessionStore['save']>[0]) => {
          const record = await target.save(commit);
          await twin.save({ ...commit, lease: undefined });
          await same(record);
          return record;
        };
      }
      const value: unknown = Reflect.get(target, name, target);
      return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
    },
  });
}

const lookup = tool({
  name: 'lookup',
  description: 'Looks a word up',
  parameters: z.object({ word: z.string() }),
  execute: ({ word }) => `${word}: a short definition of the word`,
});

const approved = tool({
  name: 'approved',
  description: 'Needs approval',
  parameters: z.object({}),
  needsApproval: true,
  execute: () => 'done',
});

/**
 * An agent that looks a word up, or asks `next` (a sub-agent), or calls a tool that needs an
 * approval, by the message's first word, then answers with the result.
 */
function agent(name: string, next?: Agent): Agent {
  const tools: AnyTool[] = [lookup, approved];
  if (next) tools.push(next.asTool({ name: `ask_${next.name}`, description: 'Asks further' }));
  const model = new ScriptedModel((request) => {
    const result = lastResult(request);
    if (result !== undefined) return { text: `answer: ${result}` };
    const said = request.items.filter((i) => i.type === 'message' && i.role === 'user').at(-1);
    const text = said?.type === 'message' && typeof said.content === 'string' ? said.content : '';
    if (text.startsWith('ask') && next) {
      return { toolCalls: [{ name: `ask_${next.name}`, arguments: { input: 'look up "x"' } }] };
    }
    if (text.startsWith('approve')) return { toolCalls: [{ name: 'approved', arguments: {} }] };
    return { toolCalls: [{ name: 'lookup', arguments: { word: text } }] };
  });
  return new Agent({ name, model, tools });
}

/** The same conversation (lookups, a sub-agent, an approval) in session `sessionId`. */
async function converse(store: SessionStore, sessionId: string, messages: number) {
  const top = agent('top', agent('helper'));
  const options = { sessionId, userId: 'alice', store };
  for (let i = 0; i < messages; i++) {
    const kind = i % 4 === 1 ? 'ask' : i % 4 === 3 ? 'approve' : 'word';
    const result = await top.run(`${kind} ${i}`, options);
    if (result.interrupted) {
      await top.resume(result.state.approve(result.interruptions[0]!.callId), { store });
    }
  }
}

describe('a record stored as a base plus its changes', () => {
  it('loads what a store writing whole records loads, after every save and after reopening', async () => {
    const changes = await openKv(true);
    const whole = await openKv(false);
    const compared = { saves: 0 };
    await converse(teeStore(changes.store, whole.store, compared), 'chat', 12);
    expect(compared.saves).toBeGreaterThan(40);
    // The changes form was written (and is what was compared), next to whole rewrites.
    expect(changes.backend.bytesOf('c!')).toBeGreaterThan(0);
    expect(whole.backend.bytesOf('c!')).toBe(0);

    await Promise.all([changes.store.close(), whole.store.close()]);
    const [again, againWhole] = await Promise.all([
      openKv(true, changes.folder),
      openKv(false, whole.folder),
    ]);
    const key = { sessionId: 'chat', userId: 'alice' };
    expect(await again.store.load(key)).toEqual(await againWhole.store.load(key));
    // A store writing whole records reads the changes form too.
    await again.store.close();
    const reader = await openKv(false, changes.folder);
    expect(await reader.store.load(key)).toEqual(await againWhole.store.load(key));
    await Promise.all([reader.store.close(), againWhole.store.close()]);
  });

  it('writes fewer record bytes per message, the other keys unchanged', async () => {
    const changes = await openKv(true);
    const whole = await openKv(false);
    await converse(changes.store, 'chat', 12);
    await converse(whole.store, 'chat', 12);
    const record = (b: CountingBackend) => b.bytesOf('s!') + b.bytesOf('c!');
    const total = (b: CountingBackend) => [...b.bytes.values()].reduce((x, y) => x + y, 0);
    console.log(
      `record bytes per message: ${(record(whole.backend) / 12).toFixed(0)} whole, ` +
        `${(record(changes.backend) / 12).toFixed(0)} with changes; all bytes per message: ` +
        `${(total(whole.backend) / 12).toFixed(0)} -> ${(total(changes.backend) / 12).toFixed(0)}`,
    );
    expect(record(changes.backend)).toBeLessThan(record(whole.backend) * 0.75);
    for (const prefix of ['l!', 'h!', 'j!', 'r!', 't!']) {
      expect(changes.backend.bytesOf(prefix)).toBe(whole.backend.bytesOf(prefix));
    }
    await Promise.all([changes.store.close(), whole.store.close()]);
  });

  it('reads records written whole by the previous format, and goes on from them', async () => {
    const old = await openKv(false);
    await converse(old.store, 'chat', 5);
    const key = { sessionId: 'chat', userId: 'alice' };
    const written = await old.store.load(key);
    const before = await dump(old.store);
    expect([...before.keys()].some((k) => k.startsWith('c!'))).toBe(false);
    await old.store.close();

    const next = await openKv(true, old.folder);
    expect(await next.store.load(key)).toEqual(written);
    expect(await dump(next.store)).toEqual(before); // reads write nothing
    await converse(next.store, 'chat', 6);
    expect(next.backend.bytesOf('c!')).toBeGreaterThan(0);
    const after = await next.store.load(key);
    expect(after.historyLength).toBeGreaterThan(written.historyLength);
    await next.store.close();
    // And a store writing whole records reads what this one wrote.
    const back = await openKv(false, old.folder);
    expect(await back.store.load(key)).toEqual(after);
    await back.store.close();
  });
});

/** A record with a run in flight whose step is `step` (its snapshot's shape, small). */
function withRun<R extends Omit<SessionRecord, 'version'>>(record: R, step: number, notes = ''): R {
  return {
    ...record,
    snapshot: {
      value: { active: 'running' },
      context: { sessionId: record.sessionId, notes },
      children: {
        run: { src: 'run', snapshot: { value: 'modelCall', context: { step, calls: [] } } },
      },
    },
  };
}

/** A commit appending `item` that moves the run to `step`. */
function stepCommit(record: SessionRecord, step: number, notes: string, item: string) {
  const commit = commitOn(record, [msg(item)]);
  return { ...commit, record: withRun(commit.record, step, notes) };
}

describe('a damaged base or changes', () => {
  const key = { sessionId: 's', userId: 'alice' };
  const rKey = recordKey(key);
  const cKey = recordChangesKey(key);

  /**
   * A session stored as a base (an earlier whole record kept aside too) plus changes, in a
   * store closed and opened again (it remembers nothing it wrote).
   */
  async function stored() {
    const first = await openKv(true);
    let record = await first.store.create(withRun(newSession('s', 'alice'), 0, 'x'.repeat(400)));
    const earlierBase = (await first.store.backend.get(rKey))!;
    record = await first.store.save(stepCommit(record, 1, 'x'.repeat(400), 'a'));
    // A big change: written whole (a new base), then changes against it.
    record = await first.store.save(stepCommit(record, 2, 'y'.repeat(900), 'b'));
    record = await first.store.save(stepCommit(record, 3, 'y'.repeat(900), 'c'));
    expect(await first.store.backend.get(rKey)).not.toBe(earlierBase);
    expect(await first.store.backend.get(cKey)).toBeDefined();
    await first.store.close();
    const { store } = await openKv(true, first.folder);
    expect(await store.load(key)).toEqual(record);
    return { store, record, earlierBase };
  }

  async function expectRefused(
    store: KvSessionStore,
    record: SessionRecord,
    damaged: string,
  ): Promise<void> {
    const before = await dump(store);
    for (const attempt of [
      () => store.load(key),
      () => store.loadForUpdate(key),
      () => store.save(stepCommit(record, 4, '', 'd')),
    ]) {
      const error = await attempt().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(InvalidSessionRecordError);
      expect(error).toMatchObject({ code: 'INVALID_SESSION_RECORD', key: damaged });
    }
    expect(await dump(store)).toEqual(before);
    await store.close();
  }

  const flip = (raw: string, at: number) =>
    raw.slice(0, at) + String.fromCharCode(raw.charCodeAt(at) ^ 1) + raw.slice(at + 1);

  it('a changed byte of the changes', async () => {
    const { store, record } = await stored();
    const raw = (await store.backend.get(cKey))!;
    await store.backend.write([{ type: 'put', key: cKey, value: flip(raw, raw.length - 5) }]);
    await expectRefused(store, record, cKey);
  });

  it('a changed byte of the base', async () => {
    const { store, record } = await stored();
    const raw = (await store.backend.get(rKey))!;
    await store.backend.write([{ type: 'put', key: rKey, value: flip(raw, raw.length - 5) }]);
    await expectRefused(store, record, rKey);
  });

  it('changes without their base', async () => {
    const { store, record } = await stored();
    await store.backend.write([{ type: 'del', key: rKey }]);
    await expectRefused(store, record, rKey);
  });

  it('a base of another version than the changes were made against', async () => {
    const { store, record, earlierBase } = await stored();
    await store.backend.write([{ type: 'put', key: rKey, value: earlierBase }]);
    await expectRefused(store, record, rKey);
  });

  it('the changes gone, the base older than the listing', async () => {
    const { store, record } = await stored();
    await store.backend.write([{ type: 'del', key: cKey }]);
    await expectRefused(store, record, cKey);
  });

  it('changes sealed again that do not fit the base', async () => {
    const { store, record } = await stored();
    const value = JSON.parse(openValue(cKey, (await store.backend.get(cKey))!).json) as {
      changes: Record<string, unknown>;
    };
    value.changes['nowhere'] = { field: [1] };
    await store.backend.write([
      { type: 'put', key: cKey, value: sealValue(cKey, JSON.stringify(value)) },
    ]);
    await expectRefused(store, record, cKey);
  });
});
