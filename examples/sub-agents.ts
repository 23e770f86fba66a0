/**
 * Sub-agents across processes: a triage agent hands a customer's message to two specialists at
 * once (billing and shipping), each a sub-agent run nested in the triage run. Billing's refund
 * needs a human's approval: the process exits while it waits, with shipping already done, and a
 * second process approves the refund and finishes every run, without repeating a step.
 *
 *   npx tsx examples/sub-agents.ts            # both phases, each in its own child process
 *   npx tsx examples/sub-agents.ts request    # phase 1 only: run until the approval pause
 *   npx tsx examples/sub-agents.ts approve    # phase 2 only: approve and finish
 *
 * Offline: the models are scripted. Sessions live in LevelDB under AGENTSTATE_DIR (a temp
 * folder when unset and both phases run); the pending RunState is kept beside it as JSON.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LevelSessionStore, RunState } from '../src/index.js';
import { supportAgent } from './agents/support.js';
import { runTwoPhases, say } from './processes.js';

const stateFile = (dir: string): string => join(dir, 'pending-approval.json');
const who = { userId: 'alice' };
const triage = supportAgent({ say });

/** Phase 1: run until billing's refund waits for approval; shipping finishes meanwhile. */
async function request(dir: string): Promise<void> {
  const store = await LevelSessionStore.open({ path: join(dir, 'db') });
  try {
    const sessionId = `support-${Date.now().toString(36)}`;
    const message = 'My order A-77 arrived broken: refund it, and where is my other parcel?';
    say(`User alice writes: "${message}"`);
    const result = await triage.run(message, { sessionId, ...who, store });
    if (!result.interrupted) throw new Error('expected the run to pause for approval');
    say(`The run paused for ${result.interruptionReason}:`);
    for (const i of result.interruptions) {
      say(
        `  ${i.agentPath?.join(' > ') ?? i.agent} asks to call ${i.toolName} ${JSON.stringify(i.arguments)}`,
      );
    }
    for (const r of result.subRuns)
      say(`  ${r.agentPath.join(' > ')} already ${r.status}: ${r.output ?? ''}`);
    await writeFile(stateFile(dir), JSON.stringify(result.state, null, 2));
    say('This process exits now.');
  } finally {
    await store.close();
  }
}

/** Phase 2 (a new process): approve the refund and finish the runs. */
async function approve(dir: string): Promise<void> {
  const store = await LevelSessionStore.open({ path: join(dir, 'db') });
  try {
    const state = RunState.fromJSON(await readFile(stateFile(dir), 'utf8'));
    for (const i of state.interruptions) {
      say(`Approving ${i.toolName} of ${i.agentPath?.join(' > ') ?? i.agent}.`);
      state.approve(i.callId, { ...(i.runId ? { runId: i.runId } : {}) });
    }
    const result = await triage.resume(state, { ...who, store });
    say(`The run finished: ${result.output}`);
    for (const r of result.subRuns) {
      say(
        `  ${r.agentPath.join(' > ')}: ${r.status} in ${r.turns} turns, ${r.usage.inputTokens + r.usage.outputTokens} tokens`,
      );
    }
    say(`Tokens in all: ${result.usage.inputTokens + result.usage.outputTokens}.`);
    await rm(stateFile(dir), { force: true });
  } finally {
    await store.close();
  }
}

runTwoPhases({
  file: fileURLToPath(import.meta.url),
  tempPrefix: 'agentstate-sub-agents-',
  first: ['request', request],
  second: ['approve', approve],
  between: 'The first process has exited. Starting a new one to approve the refund.',
}).catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
