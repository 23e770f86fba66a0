import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent, LevelSessionStore, openMemory } from '../../src/index.js';
import { startInspector } from '../../src/inspect.js';
import type { ModelRequestView } from '../../src/inspect/model-requests.js';
import { ScriptedModel, scriptedEmbedder } from '../../src/testing.js';
import type { ModelStepOutput } from '../../src/machines/step-actor-io.js';
import { runScript } from '../helpers/child-process.js';
import { inspectorClient } from '../helpers/inspector-client.js';
import {
  ALLERGY_NOTE,
  ASKED,
  FACT,
  MEMORY_USER as USER,
  NOTE,
  TOLD,
} from '../helpers/memory-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';

const CHILD = 'test/helpers/memory-child.ts';
const temps = new TempStores();
afterEach(() => temps.cleanupAll());

/** The line of `stdout` starting with `prefix`, without it. */
function lineOf(stdout: string, prefix: string): string | undefined {
  return stdout
    .split('\n')
    .find((l) => l.startsWith(prefix))
    ?.slice(prefix.length);
}

/** Runs the child to its end, successfully. */
async function child(args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  const run = await runScript(CHILD, args, env);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return run.stdout;
}

/** Opens the LevelDB folder (the children have exited) for the test's own reads. */
async function openFolder(path: string): Promise<LevelSessionStore> {
  const store = await LevelSessionStore.open({ path });
  temps.defer(() => store.close());
  return store;
}

describe('memory across processes', () => {
  it('a fact stated in session 1 (process 1) is in the model request of session 2 in a new process, with its score and source in what the model saw', async () => {
    const path = join(await temps.folder(), 'db');
    const told = await child(['tell', `level:${path}`]);
    expect(lineOf(told, 'done ')).toBeDefined();
    const asked = await child(['ask', `level:${path}`]);
    const runId = lineOf(asked, 'done ')!;

    // The model's request held the fact: one system message of recalled memories from s1.
    const { system } = JSON.parse(lineOf(asked, 'request ')!) as { system: string[] };
    expect(system).toHaveLength(1);
    expect(system[0]).toContain(FACT);
    expect(system[0]).toContain(TOLD);
    expect(system[0]).toContain('conversation s1');
    expect(system[0]).not.toContain(ASKED); // its own session is not recalled

    // What the model saw, as journaled with the step (what the inspector reads).
    const store = await openFolder(path);
    const journal = await store.readRunJournal({ sessionId: 's2', userId: USER }, runId);
    const request = (journal.find((e) => e.kind === 'model')!.output as ModelStepOutput).request!;
    expect(request.instructions).toContain(ALLERGY_NOTE);
    expect(request.memory?.workingMemory).toEqual({ version: 1 });
    const recalled = request.memory?.recalled ?? [];
    expect(recalled.map((m) => [m.id, m.kind, m.sessionId, m.text])).toEqual([
      ['msg:s1:0', 'message', 's1', TOLD],
      ['fact:s1:fact', 'fact', 's1', FACT],
    ]);
    for (const m of recalled) {
      expect(m.score).toBeGreaterThanOrEqual(0.3); // the default threshold
      expect(m.score).toBeLessThanOrEqual(1);
      expect(m.at).toBeGreaterThan(0);
    }
    expect(recalled[0]!.score).toBeGreaterThanOrEqual(recalled[1]!.score); // best first

    // The inspector's "what the model saw" of that step: the memories with their scores, their
    // message among the items where it was sent, the working memory in the instructions.
    const agent = new Agent({
      name: 'assistant',
      model: new ScriptedModel([]),
      memory: { embedder: scriptedEmbedder() },
    });
    const inspector = await startInspector({ runtime: agent.runtimeFor(store), userId: USER });
    temps.defer(() => inspector.close());
    const seen = await inspectorClient(inspector).get(
      `/api/sessions/s2/runs/${runId}/steps/0/request`,
    );
    expect(seen.status).toBe(200);
    const view = seen.json as ModelRequestView;
    expect(view.memory?.recalled).toEqual(recalled);
    expect(view.memory?.workingMemory).toEqual({ version: 1 });
    const sent = view.items!.map((i) => [i.role, i.item.type === 'message' ? i.item.role : '']);
    expect(sent).toEqual([
      ['memory', 'system'],
      [undefined, 'user'],
    ]);
    expect(JSON.stringify(view.items![0]!.item)).toContain(FACT);
    expect(view.instructions).toContain('(version 1)');
    expect(view.instructions).toContain(ALLERGY_NOTE);
  });

  for (const killAt of ['after-write', 'before-write'] as const) {
    it(`a working-memory update SIGKILLed ${killAt.replace('-', ' the ')} and resumed in a new process is applied once`, async () => {
      const path = join(await temps.folder(), 'db');
      const killed = await runScript(CHILD, ['update', `level:${path}`, 'start'], {
        KILL_AT: killAt,
      });
      expect(killed.signal).toBe('SIGKILL');
      expect(killed.stdout).toBe('writing\n');

      // What the kill left: the update stored (after the write) or not (before it).
      let store = await LevelSessionStore.open({ path });
      const before = await openMemory(store).workingMemory({ userId: USER });
      if (killAt === 'after-write') expect(before).toMatchObject({ content: NOTE, version: 1 });
      else expect(before).toBeUndefined();
      // ... and the tool's result not journaled: the run is cut off in its tool call
      const cut = await store.readHistory({ sessionId: 'w1', userId: USER });
      expect(cut.map((i) => i.type)).toEqual(['message', 'tool_call']);
      await store.close();

      const resumed = await child(['update', `level:${path}`, 'resume']);
      expect(JSON.parse(lineOf(resumed, 'result ')!)).toEqual({
        output: 'ok',
        interrupted: false,
        turns: 2,
      });

      store = await openFolder(path);
      const doc = await openMemory(store).workingMemory({ userId: USER });
      expect(doc).toMatchObject({ content: NOTE, version: 1 });
      const history = await store.readHistory({ sessionId: 'w1', userId: USER });
      expect(history.filter((i) => i.type === 'tool_result')).toEqual([
        expect.objectContaining({ callId: 'wm', output: 'Working memory updated (version 1).' }),
      ]);
    });
  }
});
