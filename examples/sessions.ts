/**
 * Durable sessions: alice's conversation continues in a second process, then the session is
 * suspended and resumed, forked, and listed.
 *
 *   npx tsx examples/sessions.ts
 *
 * Sessions live in a LevelDB folder: AGENTSTATE_DIR if set, else a temp folder removed at
 * the end. The model is the offline ScriptedModel, so no API key or network is needed.
 * The script starts a copy of itself (`--second-process`) as the second process.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import {
  Agent,
  InvalidSessionTransitionError,
  LevelSessionStore,
  SessionNotFoundError,
  contentText,
  deleteSession,
  forkSession,
  resumeSession,
  sendMessage,
  suspendSession,
  type SessionRuntime,
} from '../src/index.js';
import { ScriptedModel } from '../src/testing.js';

const SECOND_PROCESS = '--second-process';
const ALICE = { sessionId: 'alice-chat', userId: 'alice' };
const FORK_ID = 'alice-chat-fork';

/** Answers from the conversation it is sent, like a (very small) real model. */
function offlineModel(): ScriptedModel {
  return new ScriptedModel(
    (request) => {
      const said = request.items.flatMap((i) =>
        i.type === 'message' && i.role === 'user' ? [contentText(i.content)] : [],
      );
      const last = said[said.length - 1] ?? '';
      if (last === 'What did I just say?') {
        const previous = said[said.length - 2];
        return { text: previous ? `You said: "${previous}"` : 'You have not said anything yet.' };
      }
      return { text: `Noted: "${last}" (I have seen ${said.length} message(s) from you here).` };
    },
    { recordCalls: true },
  );
}

async function withAgent<T>(
  dir: string,
  fn: (agent: Agent, store: LevelSessionStore, model: ScriptedModel) => Promise<T>,
) {
  const store = await LevelSessionStore.open({ path: dir });
  const model = offlineModel();
  const agent = new Agent({
    name: 'assistant',
    instructions: 'You are a helpful assistant.',
    model,
    store,
  });
  try {
    return await fn(agent, store, model);
  } finally {
    await store.close();
  }
}

async function say(
  runtime: SessionRuntime,
  key: { sessionId: string; userId: string },
  text: string,
  tag: string,
) {
  const result = await runtime.execute(key, sendMessage(text));
  const prefix = tag ? `${tag} ` : '';
  console.log(`${prefix}alice> ${text}`);
  console.log(`${prefix}${key.sessionId}> ${result.output ?? ''}`);
}

/** Process 2: a fresh process that only has the folder, asking about process 1's turn. */
async function secondProcess(dir: string): Promise<void> {
  const tag = `[process 2, pid ${process.pid}]`;
  await withAgent(dir, async (agent, _store, model) => {
    const result = await agent.run('What did I just say?', ALICE);
    console.log(`${tag} alice> What did I just say?`);
    console.log(`${tag} alice-chat> ${result.output ?? ''}`);
    console.log(
      `${tag} (the model was sent ${model.calls[0]?.items.length ?? 0} items: the first process's turn and this question)`,
    );
  });
}

function runSecondProcess(dir: string): Promise<void> {
  const script = fileURLToPath(import.meta.url);
  const root = fileURLToPath(new URL('..', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', script, SECOND_PROCESS], {
    cwd: root,
    env: { ...process.env, AGENTSTATE_DIR: dir },
    stdio: 'inherit',
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`second process exited with ${code}`)),
    );
  });
}

async function clearEarlierRun(runtime: SessionRuntime): Promise<void> {
  for (const sessionId of [ALICE.sessionId, FORK_ID]) {
    try {
      await runtime.execute({ ...ALICE, sessionId }, deleteSession({ purge: true }));
      console.log(`(removed session ${sessionId} left by an earlier run)`);
    } catch (error) {
      if (!(error instanceof SessionNotFoundError)) throw error;
    }
  }
}

async function main(): Promise<void> {
  console.log('Model: ScriptedModel (offline, deterministic; no API key or network needed).');
  const ownDir = process.env.AGENTSTATE_DIR === undefined;
  const dir = process.env.AGENTSTATE_DIR ?? (await mkdtemp(join(tmpdir(), 'agentstate-sessions-')));
  console.log(
    `Sessions are stored in LevelDB at ${dir}${ownDir ? ' (a temp folder, removed at the end)' : ''}.`,
  );

  // 1. Process 1 starts alice's conversation, then closes the folder.
  console.log('\n== Two processes, one conversation ==');
  const tag = `[process 1, pid ${process.pid}]`;
  await withAgent(dir, async (agent, store) => {
    const runtime = agent.runtimeFor(store);
    await clearEarlierRun(runtime);
    await say(runtime, ALICE, "Hi, I'm Alice.", tag);
  });

  // 2. A separate process opens the same folder and remembers.
  await runSecondProcess(dir);

  await withAgent(dir, async (agent, store) => {
    const runtime = agent.runtimeFor(store);

    // 3. Suspend: messages are refused until the session is resumed.
    console.log('\n== Suspend and resume ==');
    await runtime.execute(ALICE, suspendSession());
    console.log(`alice-chat is ${(await runtime.getSessionInfo(ALICE)).status}`);
    try {
      await runtime.execute(ALICE, sendMessage('Are you there?'));
    } catch (error) {
      if (!(error instanceof InvalidSessionTransitionError)) throw error;
      console.log(`sending while suspended was refused: ${error.code}`);
    }
    await runtime.execute(ALICE, resumeSession());
    console.log(`alice-chat is ${(await runtime.getSessionInfo(ALICE)).status} again`);
    await say(runtime, ALICE, 'Let us plan a trip to Oslo.', '');

    // 4. Fork: a new session with the history so far; from here the two diverge.
    console.log('\n== Fork ==');
    const fork = await runtime.execute(ALICE, forkSession(FORK_ID));
    console.log(
      `forked ${fork.sessionId} from ${fork.parentId} with ${fork.historyLength} history items`,
    );
    const forkKey = { ...ALICE, sessionId: FORK_ID };
    await say(runtime, forkKey, 'Actually, make it Rome.', '');
    // the parent never saw the fork's message
    await say(runtime, ALICE, 'What did I just say?', '');
    await say(runtime, forkKey, 'What did I just say?', '');

    // 5. List alice's sessions.
    console.log("\n== alice's sessions ==");
    const { sessions } = await runtime.listSessions({ userId: 'alice' });
    for (const s of sessions) {
      const parent = s.parentId ? `, forked from ${s.parentId}` : '';
      console.log(
        `- ${s.sessionId}: ${s.status}, version ${s.version}, ${s.historyLength} items, ${s.usage.turns} turn(s)${parent}`,
      );
    }
  });

  if (ownDir) await rm(dir, { recursive: true, force: true });
  console.log('\nDone.');
}

if (process.argv.includes(SECOND_PROCESS)) {
  const dir = process.env.AGENTSTATE_DIR;
  if (!dir) throw new Error(`${SECOND_PROCESS} needs AGENTSTATE_DIR`);
  await secondProcess(dir);
} else {
  await main();
}
