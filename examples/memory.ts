/**
 * Memory across sessions: alice tells the assistant a fact in one conversation; in another
 * conversation, in a new process, the assistant's request holds it through recall. Then the
 * app forgets alice.
 *
 *   1. `tell`: session `chat-1`: alice says she is allergic to peanuts; the model notes it in its
 *      working memory (`update_working_memory`) and saves it as a fact (`remember`); exit.
 *   2. `ask` (a new process): session `chat-2`: alice asks for a snack. Before the model call
 *      the memories of her other sessions most similar to her question join the request; the
 *      example prints what the model saw (the recalled memories with their scores, as the
 *      journal of the step keeps them), the answer, and then forgets alice.
 *
 *   npx tsx examples/memory.ts         # both phases, each in its own process
 *   npx tsx examples/memory.ts tell    # one phase only (tell or ask)
 *
 * Offline: the model is scripted and the embedder is `scriptedEmbedder` (texts sharing words
 * get similar vectors). Everything lives in LevelDB under AGENTSTATE_DIR (a temp folder when
 * unset and both phases run; `./.agentstate` for one phase).
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  Agent,
  LevelSessionStore,
  contentText,
  openMemory,
  type ModelRequest,
  type RunResult,
  type RequestMemoryFacts,
} from '../src/index.js';
import { ScriptedModel, scriptedEmbedder } from '../src/testing.js';
import { runTwoPhases, say } from './processes.js';

const USER = 'alice';
const FACT = 'Alice is allergic to peanuts.';

/** The system message recall adds to the request, if any. */
function recalledText(request: ModelRequest): string | undefined {
  const found = request.items.find((i) => i.type === 'message' && i.role === 'system');
  return found?.type === 'message' ? contentText(found.content) : undefined;
}

/**
 * An offline stand-in for a real model: on hearing an allergy it notes it in its working
 * memory and saves it as a fact; asked for a snack, it answers from what recall gave it.
 */
const model = new ScriptedModel((request) => {
  const last = request.items[request.items.length - 1];
  if (last?.type === 'tool_result') return { text: 'Noted: no peanuts for you.' };
  const said = last?.type === 'message' ? contentText(last.content) : '';
  if (said.includes('allergic to peanuts')) {
    return {
      toolCalls: [
        {
          name: 'update_working_memory',
          arguments: { append: 'Allergy: peanuts' },
          callId: 'note',
        },
        { name: 'remember', arguments: { text: FACT }, callId: 'fact' },
      ],
    };
  }
  const recalled = recalledText(request);
  return {
    text: recalled?.includes('peanuts')
      ? 'Try apple slices with sunflower butter: no peanuts, as you told me before.'
      : 'Try a handful of salted peanuts.',
  };
});

async function open(dir: string) {
  const store = await LevelSessionStore.open({ path: join(dir, 'db') });
  const embedder = scriptedEmbedder();
  const agent = new Agent({
    name: 'assistant',
    instructions: 'You help alice pick food.',
    model,
    store,
    // Working memory (free text) and recall with their defaults: 5 memories at most, a score
    // of 0.3 at least, from alice's other sessions.
    memory: { embedder },
  });
  return { store, agent, memory: openMemory(store, { embedder }) };
}

/** What one run's model steps saw of memory, as their journal entries keep it. */
async function whatTheModelSaw(store: LevelSessionStore, sessionId: string, result: RunResult) {
  const entries = await store.readRunJournal({ sessionId, userId: USER }, result.id);
  for (const entry of entries.filter((e) => e.kind === 'model')) {
    const request = (entry.output as { request?: RequestSeen }).request;
    const memory = request?.memory;
    say(`  model step ${entry.step}, its instructions:`);
    for (const line of (request?.instructions ?? '').split('\n')) if (line) say(`    | ${line}`);
    if (memory?.recalled) say('  recalled, as one system message just before her message:');
    for (const m of memory?.recalled ?? []) {
      const from = m.sessionId ? ` from ${m.sessionId}` : '';
      say(`    recalled ${m.score.toFixed(2)} ${m.kind}${from}: "${m.text}"`);
    }
  }
}

/** What a model step journals of its request: its instructions, and what memory added. */
interface RequestSeen {
  instructions?: string;
  memory?: RequestMemoryFacts;
}

/** Phase 1: alice states a fact; the model keeps it. */
async function tell(dir: string): Promise<void> {
  const { store, agent, memory } = await open(dir);
  try {
    const text = 'I am allergic to peanuts.';
    say(`alice (chat-1)> ${text}`);
    const result = await agent.run(text, { sessionId: 'chat-1', userId: USER });
    say(`assistant (chat-1)> ${String(result.output)}`);
    const working = await memory.workingMemory({ userId: USER });
    say(`Working memory, version ${working?.version}: ${JSON.stringify(working?.content)}`);
    const { memories } = await memory.list({ userId: USER });
    for (const m of memories) say(`Memory ${m.kind} ${m.id}: "${m.text}"`);
    say('This process exits now.');
  } finally {
    await store.close();
  }
}

/** Phase 2 (a new process): alice asks in another session; recall brings the fact back. */
async function ask(dir: string): Promise<void> {
  const { store, agent, memory } = await open(dir);
  try {
    const text = 'Alice again: snack ideas, allergic as I am?';
    say(`alice (chat-2)> ${text}`);
    const result = await agent.run(text, { sessionId: 'chat-2', userId: USER });
    say('What the model saw:');
    await whatTheModelSaw(store, 'chat-2', result);
    say(`assistant (chat-2)> ${String(result.output)}`);
    // Erase alice: her memories, their vectors and her working memory, and with `sessions`
    // her conversations too (a recalled text also lives in the journal of the session that
    // recalled it).
    const erased = await memory.forget({ userId: USER, sessions: true });
    say(
      `Forgot alice: ${erased.memories} memories, ${erased.workingMemories} working memory, ${erased.sessions} sessions.`,
    );
    const left = await memory.list({ userId: USER });
    say(`Memories left: ${left.memories.length}.`);
  } finally {
    await store.close();
  }
}

runTwoPhases({
  file: fileURLToPath(import.meta.url),
  tempPrefix: 'agentstate-memory-',
  first: ['tell', tell],
  second: ['ask', ask],
  between: 'A new process, a new session of alice.',
}).catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
