/**
 * Child process of the model-error facts test: opens the LevelDB store a parent left behind
 * with a run paused for approval, approves the call from the RunState file and resumes the
 * run; its next model call (to the parent's local Chat Completions server) fails. Prints the
 * facts of the error on the result of `agent.resume` (interrupted, reason `error`) as one line.
 *
 *   node --import tsx test/helpers/model-error-process.ts <dbPath> <baseURL> <stateFile>
 */
import { readFile } from 'node:fs/promises';
import { LevelSessionStore, ModelError, RunState } from '../../src/index.js';
import { transferAgent } from './transfer-agent.js';

async function main(): Promise<void> {
  const [dbPath, baseURL, stateFile] = process.argv.slice(2);
  if (!dbPath || !baseURL || !stateFile) throw new TypeError('usage: <dbPath> <baseURL> <file>');
  const store = await LevelSessionStore.open({ path: dbPath });
  try {
    const state = RunState.fromJSON(await readFile(stateFile, 'utf8'));
    state.approve(state.interruptions[0]?.callId ?? '');
    const result = await transferAgent(store, baseURL).resume(state);
    const e = result.error as ModelError | undefined;
    if (!e) {
      console.log('UNEXPECTED resumed without an error');
      return;
    }
    const cause = e.cause instanceof Error ? e.cause.name : undefined;
    const { code, status, requestId, retryable } = e;
    const facts = { model: e instanceof ModelError, code, status, requestId, retryable, cause };
    console.log(`FACTS ${JSON.stringify(facts)}`);
  } finally {
    await store.close();
  }
}

main().catch((error: unknown) => {
  console.error(`FAILED ${String(error)}`);
  process.exitCode = 1;
});
