/**
 * One-off figure (not part of `npm run bench`): attach to a session of 500 messages and receive
 * its last run's events (`agent.attach`, the run ended: all from the store), timed against
 * reading that run's journal alone (`store.readRunJournal`); prints the ratio. Run:
 * npx tsx bench/attach-replay.ts
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, LevelSessionStore } from '../src/index.js';
import { ScriptedModel } from '../src/testing.js';

const MESSAGES = 500;
const ROUNDS = 51;
const folder = await mkdtemp(join(tmpdir(), 'agentstate-attach-bench-'));
const store = await LevelSessionStore.open({ path: join(folder, 'db') });
const agent = new Agent({
  name: 'bench',
  model: new ScriptedModel((request) => ({ text: `answer ${request.items.length}` })),
  store,
});
const key = { sessionId: 'long', userId: 'bench' };
try {
  for (let i = 0; i < MESSAGES; i++) await agent.run(`message ${i}`, key);
  const runId = (await agent.runtimeFor(store).getSession(key)).lastRun!.runId;
  const median = (times: number[]) => [...times].sort((a, b) => a - b)[times.length >> 1]!;
  const attach: number[] = [];
  const journal: number[] = [];
  let events = 0;
  for (let round = 0; round < ROUNDS; round++) {
    let started = performance.now();
    events = 0;
    for await (const _event of agent.attach(key.sessionId, { userId: key.userId })) events++;
    attach.push(performance.now() - started);
    started = performance.now();
    await store.readRunJournal(key, runId);
    journal.push(performance.now() - started);
  }
  const [a, j] = [median(attach), median(journal)];
  console.log(
    `attach to a session of ${MESSAGES} messages, its last run's ${events} events: median ${a.toFixed(2)} ms; reading its journal alone: ${j.toFixed(2)} ms; ratio ${(a / j).toFixed(1)} over ${ROUNDS} rounds`,
  );
} finally {
  await store.close();
  await rm(folder, { recursive: true, force: true });
}
