/**
 * Human approval across processes: a run pauses before a risky tool call, its process exits,
 * and a second process approves the call and resumes the run to the end.
 *
 *   npx tsx examples/approval.ts            # both phases, each in its own child process
 *   npx tsx examples/approval.ts request    # phase 1 only: run until the approval pause, exit
 *   npx tsx examples/approval.ts approve    # phase 2 only: approve and resume to the end
 *   npx tsx examples/approval.ts reject     # phase 2, but reject the call instead
 *
 * Offline: the model is scripted. Sessions live in LevelDB under AGENTSTATE_DIR (a temp
 * folder when unset and both phases run); the pending RunState is kept beside it as JSON.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LevelSessionStore, RunState } from '../src/index.js';
import { bills } from './agents/bills.js';
import { runPhase as runIn, say } from './processes.js';

const stateFile = (dir: string): string => join(dir, 'pending-approval.json');

/** Phase 1: run until the approval pause, save the RunState, and let the process end. */
async function request(dir: string): Promise<void> {
  const store = await LevelSessionStore.open({ path: join(dir, 'db') });
  try {
    const sessionId = `bills-${Date.now().toString(36)}`;
    const question = 'Please pay my electricity bill: $120 to ACME Power.';
    say(`User alice asks: "${question}"`);
    const result = await bills.run(question, { sessionId, userId: 'alice', store });
    if (!result.interrupted) throw new Error('expected the run to pause for approval');
    say(`The run paused for ${result.interruptionReason}. Pending call(s):`);
    for (const i of result.interruptions)
      say(`  ${i.callId}  ${i.toolName} ${JSON.stringify(i.arguments)}`);
    await writeFile(stateFile(dir), JSON.stringify(result.state, null, 2));
    say(`Session "${sessionId}" is stored in ${join(dir, 'db')}; this process exits now.`);
  } finally {
    await store.close();
  }
}

/** Phase 2 (a new process): load the RunState, decide, and resume the run to its end. */
async function decide(dir: string, approve: boolean): Promise<void> {
  const store = await LevelSessionStore.open({ path: join(dir, 'db') });
  try {
    const state = RunState.fromJSON(await readFile(stateFile(dir), 'utf8'));
    say(
      `Loaded the paused run ${state.runId} of session "${state.sessionId}" (${state.history.length} items so far).`,
    );
    for (const { callId, toolName } of state.interruptions) {
      say(`${approve ? 'Approving' : 'Rejecting'} ${callId} (${toolName}).`);
      if (approve) state.approve(callId);
      else state.reject(callId, { message: 'The user declined this payment.' });
    }
    const result = await bills.resume(state, { store });
    say(`The run finished after ${result.turns} turns: ${result.output}`);
    await rm(stateFile(dir), { force: true });
  } finally {
    await store.close();
  }
}

/** Runs one phase of this file in a new Node process and waits for it to exit. */
const runPhase = (dir: string, phase: string): Promise<void> =>
  runIn(fileURLToPath(import.meta.url), dir, phase);

async function main(): Promise<void> {
  const phase = process.argv[2] ?? 'all';
  const given = process.env.AGENTSTATE_DIR;
  const dir =
    given ??
    (phase === 'all' ? await mkdtemp(join(tmpdir(), 'agentstate-approval-')) : './.agentstate');
  try {
    if (phase === 'all') {
      say(`Running the two phases in two processes; data in ${dir}.`);
      await runPhase(dir, 'request');
      say('The first process has exited. Starting a new one to approve the call.');
      await runPhase(dir, 'approve');
    }
    if (phase === 'request') await request(dir);
    if (phase === 'approve' || phase === 'reject') await decide(dir, phase === 'approve');
    if (!['all', 'request', 'approve', 'reject'].includes(phase))
      throw new Error(`unknown phase "${phase}"`);
  } finally {
    if (!given && phase === 'all') await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
