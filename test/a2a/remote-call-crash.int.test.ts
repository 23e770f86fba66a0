import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JsonLineChild, type ChildEvent } from '../helpers/json-line-child.js';
import { TempStores } from '../helpers/temp-store.js';

/**
 * Issue 47: agent A calls agent B over A2A, each in its own process. A is SIGKILLed while B
 * works on its task; A resumed in a new process re-attaches to B's task instead of sending it
 * again: B's work happened once, and A's run completes with B's answer.
 */
const A = 'test/helpers/a2a-a-process.ts';
const B = 'test/helpers/a2a-b-process.ts';

const temps = new TempStores();
const children: JsonLineChild[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) await c.stop();
  await temps.cleanupAll();
});

async function start(script: string, args: string[]): Promise<JsonLineChild> {
  const child = await JsonLineChild.start(script, args);
  children.push(child);
  return child;
}

/** Every `rpc` event of B from now on, in order, and a wait for one method. */
function methodsOf(b: JsonLineChild): {
  methods: string[];
  seen: (method: string) => Promise<void>;
} {
  const methods: string[] = [];
  const waiting: { method: string; resolve: () => void }[] = [];
  b.onEvent((e: ChildEvent) => {
    const name = e.event === 'rpc' ? String(e.method) : `(${e.event})`;
    methods.push(name);
    for (const w of waiting.filter((w) => w.method === name || e.event === 'exited')) w.resolve();
  });
  const seen = (method: string) =>
    methods.includes(method)
      ? Promise.resolve()
      : new Promise<void>((resolve) => waiting.push({ method, resolve }));
  return { methods, seen };
}

describe('a remote A2A sub-agent across a crash of the caller (two processes)', () => {
  it("A, killed while B works, re-attaches to B's task when resumed: B works once, A gets its answer", async () => {
    const folder = await temps.folder();
    const db = join(folder, 'a-db');
    const ledger = join(folder, 'b-ledger.txt');
    const b = await start(B, [join(folder, 'b-db'), ledger]);
    const listening = await b.next('listening');
    expect(listening.event).toBe('listening');
    const url = String(listening.url);

    const first = await start(A, [db, url, 'start']);
    // B's task exists and its work is in flight: A dies now (SIGKILL), in its model step.
    const working = await b.next('working');
    expect(working.event).toBe('working');
    await first.stop();

    const { methods, seen } = methodsOf(b);
    const second = await start(A, [db, url, 'resume']);
    // The resumed A follows B's task: now B may finish.
    await seen('SubscribeToTask');
    b.send('release');
    const done = await second.next('done');
    expect(done.event, second.stderrText).toBe('done');
    expect(done.interrupted).toBe(false);
    expect(done.output).toBe('A heard: B counted 42 invoices');
    // B's run's usage (two answers of 10 / 5) rolled up with A's two (10 / 5 each).
    expect(done.usage).toMatchObject({ inputTokens: 40, outputTokens: 20 });

    // B's work happened once; the resumed A looked the task up and followed it, sending nothing.
    expect(await readFile(ledger, 'utf8')).toBe('started\ndone\n');
    expect(methods).not.toContain('SendStreamingMessage');
    expect(methods).not.toContain('SendMessage');
    expect(methods.slice(0, 2)).toEqual(['ListTasks', 'GetTask']);
    expect(methods).not.toContain('(working)');
  });
});
