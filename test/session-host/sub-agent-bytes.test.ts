import { z } from 'zod';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent, tool, type AnyTool, type SessionStore } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { lastResult } from '../helpers/sub-agent-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

const lookup = tool({
  name: 'lookup',
  description: 'Looks a word up',
  parameters: z.object({ word: z.string() }),
  execute: ({ word }) => `${word}: a short definition of the word`,
});

/** An agent that looks a word up and answers with it, or first asks `next` (a sub-agent). */
function agent(name: string, store: SessionStore | undefined, next?: Agent): Agent {
  const tools: AnyTool[] = [lookup];
  if (next) tools.push(next.asTool({ name: `ask_${next.name}`, description: 'Asks further' }));
  const model = new ScriptedModel((request) => {
    const result = lastResult(request);
    if (result === undefined) {
      return next
        ? { toolCalls: [{ name: `ask_${next.name}`, arguments: { input: 'look up "state"' } }] }
        : { toolCalls: [{ name: 'lookup', arguments: { word: 'state' } }] };
    }
    return { text: `answer: ${result}` };
  });
  return new Agent({ name, model, tools, ...(store ? { store } : {}) });
}

/** Bytes of each save, with the depth of the deepest run the saved snapshot holds. */
async function savesOf(top: Agent, store: SessionStore, sessionId: string) {
  const saves: { bytes: number; depth: number }[] = [];
  let last = store.stats().bytesWritten;
  top.runtimeFor(store).on('SessionSaved', ({ record }) => {
    const bytes = store.stats().bytesWritten;
    saves.push({ bytes: bytes - last, depth: depthOf(record.snapshot) });
    last = bytes;
  });
  // a few earlier messages, so the session is not new
  for (let i = 0; i < 3; i++) await top.run(`message ${i}`, { sessionId });
  saves.length = 0;
  await top.run('the measured message', { sessionId });
  return saves;
}

function depthOf(snapshot: unknown): number {
  type Node = { snapshot: { children?: Record<string, Node> } };
  const run = (snapshot as { children: { run?: Node } }).children.run;
  const walk = (node: Node | undefined, depth: number): number => {
    if (!node) return depth - 1;
    const children = Object.entries(node.snapshot.children ?? {})
      .filter(([id]) => id.startsWith('agent-'))
      .map(([, child]) => walk(child, depth + 1));
    return Math.max(depth, ...children);
  };
  return walk(run, 0);
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

describe('sub-agent steps keep their cost bounded', () => {
  // Each sub-agent run is stored under a key of its own, so a child's step rewrites the session
  // record and its own run, not its ancestors' (2.6x with the whole tree in the record, 1.7x
  // with each run apart); a stored run leaves out what its parent's call and its own context
  // already hold (`sub-run-encoding.ts`): about 1.4x.
  it('writes at most 1.5x the bytes of a top-level step for a step of a child at depth 3', async () => {
    const { store } = await temps.open();
    const flat = agent('flat', store);
    const flatSaves = await savesOf(flat, store, 'flat');
    const deep = agent(
      'top',
      store,
      agent('one', undefined, agent('two', undefined, agent('three', undefined))),
    );
    const deepSaves = await savesOf(deep, store, 'deep');
    const topLevel = mean(flatSaves.map((s) => s.bytes));
    const atDepth3 = deepSaves.filter((s) => s.depth === 3).map((s) => s.bytes);
    expect(atDepth3.length).toBeGreaterThanOrEqual(3);
    const ratio = mean(atDepth3) / topLevel;
    console.log(
      `bytes per step: top-level ${topLevel.toFixed(0)}, child at depth 3 ${mean(atDepth3).toFixed(0)} (${ratio.toFixed(2)}x)`,
    );
    expect(ratio).toBeLessThanOrEqual(1.5);
  });
});
