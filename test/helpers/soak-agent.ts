import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { Agent, SessionNotFoundError, tool, type SessionStore } from '../../src/index.js';
import { continueRun } from '../../src/actions/continue-run.js';
import { approvalModel, callTools } from './approval-agent.js';

/**
 * The soak test's agent (test/persistence/postgres/postgres-soak.int.test.ts): the deterministic approval model and
 * tools that append each execution to `<logDir>/<pid>.log` (`<ms> <sessionId> <callId>`), so
 * executions across processes, SIGKILLed ones included, can be counted afterwards.
 */
export const SOAK_USER = 'soak';

/** The 5 messages of every session: plain tools, parallel calls and one approval. */
export const SOAK_MESSAGES = [
  callTools({ name: 'lookup', arguments: { word: 'alpha' } }),
  callTools(
    { name: 'lookup', arguments: { word: 'beta' } },
    { name: 'lookup', arguments: { word: 'gamma' } },
  ),
  callTools({ name: 'send_email', arguments: { to: 'ops@x.io', body: 'report' } }),
  callTools({ name: 'lookup', arguments: { word: 'delta' } }),
  callTools(
    { name: 'lookup', arguments: { word: 'epsilon' } },
    { name: 'send_email', arguments: { to: 'boss@x.io', body: 'done' } },
  ),
];

export function soakAgent(store: SessionStore, logDir: string | undefined, owner?: string) {
  const log = (sessionId: string | undefined, callId: string): void => {
    if (logDir) {
      appendFileSync(join(logDir, `${process.pid}.log`), `${Date.now()} ${sessionId} ${callId}\n`);
    }
  };
  const lookup = tool({
    name: 'lookup',
    description: 'Looks a word up',
    parameters: z.object({ word: z.string() }),
    idempotent: true, // its log is keyed by call id: a call in doubt after a kill runs again
    execute: ({ word }, { context, callId }) => {
      log(context.sessionId, callId);
      return `${word}: found`;
    },
  });
  const sendEmail = tool({
    name: 'send_email',
    description: 'Sends an email',
    parameters: z.object({ to: z.string(), body: z.string() }),
    needsApproval: true,
    idempotent: true, // its log is keyed by call id: a call in doubt after a kill runs again
    execute: ({ to }, { context, callId }) => {
      log(context.sessionId, callId);
      return `sent to ${to}`;
    },
  });
  return new Agent({
    name: 'soak',
    model: approvalModel(),
    store,
    tools: [lookup, sendEmail],
    lease: owner ? { owner, ttlMs: 60_000 } : undefined,
  });
}

/**
 * Brings a session to having answered message `index` of {@link SOAK_MESSAGES}, whatever a
 * killed worker left: resumes a run in flight, approves the calls that wait, and sends the
 * message only if the history does not hold it yet (idempotent).
 */
export async function ensureAnswered(
  agent: Agent,
  store: SessionStore,
  sessionId: string,
  index: number,
): Promise<void> {
  const key = { sessionId, userId: SOAK_USER };
  const runtime = agent.runtimeFor(store);
  for (let attempt = 0; attempt < 20; attempt++) {
    const view = await runtime.getSession(key).catch((error: unknown) => {
      if (error instanceof SessionNotFoundError) return undefined;
      throw error;
    });
    const run = view?.run;
    if (run?.state === 'awaitingApproval') {
      const decisions = run.context.calls
        .filter((c) => c.needsApproval && !c.decision)
        .map((c) => ({ callId: c.callId, approve: true, runId: run.context.runId }));
      await runtime.execute(key, continueRun({ decisions }));
      continue;
    }
    if (run) {
      await agent.resume(sessionId, { userId: SOAK_USER, store });
      continue;
    }
    const items = view ? await store.readHistory(key) : [];
    const sent = items.filter((i) => i.type === 'message' && i.role === 'user').length;
    if (sent > index) return;
    if (sent < index) throw new Error(`session ${sessionId} holds ${sent} messages, not ${index}`);
    await agent.run(SOAK_MESSAGES[index]!, { sessionId, userId: SOAK_USER, store });
  }
  throw new Error(`session ${sessionId} did not settle`);
}
