/**
 * Child process of test/memory/memory-processes.int.test.ts: one process of an app whose agent
 * keeps memory across sessions (scripted model, `scriptedEmbedder`), on the store `<store>`
 * names: `level:<folder>` or `pg:<url>#<schema>`.
 *
 *   node memory-child.js tell <store>          session s1 of alice: "I am allergic to peanuts."
 *                                              (the model updates the working memory and
 *                                              `remember`s the fact); prints `done <runId>`
 *   node memory-child.js ask <store>           session s2 of alice asks; prints
 *                                              `request <json>`: the system messages of the
 *                                              model's first request, and `done <runId>`
 *   node memory-child.js update <store> <start|resume>
 *                                              session w1 of alice: the model appends
 *                                              "Likes green tea" to the working memory, once;
 *                                              `resume` resumes the stored run; prints
 *                                              `result <json>` (the run's output and status)
 *   node memory-child.js sessions <store> <tag> <count>
 *                                              `count` sessions of alice at once, each the
 *                                              model appending its own line `<tag>-<i>`;
 *                                              prints `result <json>`: the runs' outputs, and
 *                                              how many writes another writer beat
 *
 * `KILL_AT=before-write|after-write` (with `update`): the store handed to the agent is the real
 * one with `writeWorkingMemory` wrapped, SIGKILLing this process right before the write is
 * handed to the store, or right after it resolved (the update is stored, its tool result is not
 * journaled yet). Prints `writing` before it kills.
 */
import {
  Agent,
  LevelSessionStore,
  MemoryConflictError,
  contentText,
  type ModelRequest,
  type SessionStore,
} from '../../src/index.js';
import { PostgresSessionStore } from '../../src/postgres.js';
import { ScriptedModel, scriptedEmbedder, type ScriptedResponse } from '../../src/testing.js';
import { reportChildFailure } from './child-process.js';
import { wrappedMethod } from './wrapped-method.js';
import { ALLERGY_NOTE, ASKED, FACT, MEMORY_USER, NOTE, TOLD } from './memory-fixtures.js';

const USER = MEMORY_USER;

const say = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

async function openStore(spec: string): Promise<SessionStore & { close(): Promise<void> }> {
  if (spec.startsWith('level:')) return LevelSessionStore.open({ path: spec.slice(6) });
  if (spec.startsWith('pg:')) {
    const [url, schema] = spec.slice(3).split('#');
    return PostgresSessionStore.open({ connectionString: url!, schema: schema!, poolSize: 4 });
  }
  throw new Error(`bad store ${spec}`);
}

/** The store with `writeWorkingMemory` SIGKILLing the process as `KILL_AT` says (a fake passed in). */
function killing(store: SessionStore, at: string | undefined): SessionStore {
  if (!at) return store;
  if (at !== 'before-write' && at !== 'after-write') throw new Error(`bad KILL_AT ${at}`);
  return wrappedMethod(store, 'writeWorkingMemory', (write) => async (...args) => {
    say('writing');
    if (at === 'before-write') process.kill(process.pid, 'SIGKILL');
    const written = await write(...args);
    process.kill(process.pid, 'SIGKILL');
    return written;
  });
}

/** The text of the newest item when it is a message. */
function lastSaid(request: ModelRequest): string | undefined {
  const last = request.items.at(-1);
  return last?.type === 'message' ? contentText(last.content) : undefined;
}

/**
 * The scripted model: a user message asks it to keep what it says in the working memory (and,
 * for the allergy, as a fact); once its tools answered, it says `ok`.
 */
function answer(request: ModelRequest): ScriptedResponse {
  if (request.items.at(-1)?.type === 'tool_result') return { text: 'ok' };
  const said = lastSaid(request) ?? '';
  if (said === TOLD) {
    return {
      toolCalls: [
        { name: 'update_working_memory', arguments: { append: ALLERGY_NOTE }, callId: 'wm' },
        { name: 'remember', arguments: { text: FACT }, callId: 'fact' },
      ],
    };
  }
  if (said.startsWith('note ')) {
    return {
      toolCalls: [
        { name: 'update_working_memory', arguments: { append: said.slice(5) }, callId: 'wm' },
      ],
    };
  }
  return { text: 'ok' };
}

async function main(): Promise<void> {
  const [command, spec, ...args] = process.argv.slice(2);
  if (!command || !spec) throw new Error('usage: memory-child.ts <command> <store> [...]');
  const store = await openStore(spec);
  try {
    const model = new ScriptedModel(answer, { recordCalls: true });
    let conflicts = 0; // working-memory writes another writer beat (then applied again)
    const counted = wrappedMethod(store, 'writeWorkingMemory', (write) => async (...args) => {
      try {
        return await write(...args);
      } catch (error) {
        if (error instanceof MemoryConflictError) conflicts++;
        throw error;
      }
    });
    const agent = new Agent({
      name: 'assistant',
      model,
      store: killing(counted, process.env['KILL_AT']),
      memory: { embedder: scriptedEmbedder() },
    });
    const key = (sessionId: string) => ({ sessionId, userId: USER });
    switch (command) {
      case 'tell': {
        const result = await agent.run(TOLD, key('s1'));
        say(`done ${result.id}`);
        break;
      }
      case 'ask': {
        const result = await agent.run(ASKED, key('s2'));
        const system = model.calls[0]!.items.flatMap((i) =>
          i.type === 'message' && i.role === 'system' ? [contentText(i.content)] : [],
        );
        say(`request ${JSON.stringify({ system })}`);
        say(`done ${result.id}`);
        break;
      }
      case 'update': {
        const result =
          args[0] === 'resume'
            ? await agent.resume('w1', { userId: USER })
            : await agent.run(`note ${NOTE}`, key('w1'));
        say(
          `result ${JSON.stringify({ output: result.output, interrupted: result.interrupted, turns: result.turns })}`,
        );
        break;
      }
      case 'sessions': {
        const [tag, count] = args;
        const runs = Array.from({ length: Number(count) }, (_, i) =>
          agent.run(`note ${tag}-${i}`, key(`${tag}-${i}`)),
        );
        const results = await Promise.all(runs);
        say(`result ${JSON.stringify({ outputs: results.map((r) => r.output), conflicts })}`);
        break;
      }
      default:
        throw new Error(`unknown command ${command}`);
    }
  } finally {
    await store.close();
  }
}

main().catch(reportChildFailure);
