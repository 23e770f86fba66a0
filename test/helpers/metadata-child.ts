/**
 * Child process of the metadata tests: opens the LevelDB store the parent left behind,
 * approves every pending call of the RunState in `stateFile` and resumes it, through
 * `agent.resume` or through a new `AgentSession` created without metadata. Prints what the
 * tool saw as one JSON line.
 *
 *   node --import tsx test/helpers/metadata-child.ts <dbPath> <stateFile> <agent|session>
 */
import { readFile } from 'node:fs/promises';
import { LevelSessionStore, RunState } from '../../src/index.js';
import { metadataAgent } from './metadata-agent.js';

async function main(): Promise<void> {
  const [dbPath, stateFile, via] = process.argv.slice(2);
  if (!dbPath || !stateFile) throw new TypeError('usage: metadata-child.ts <db> <state> <via>');
  const store = await LevelSessionStore.open({ path: dbPath });
  try {
    const { agent, seen } = metadataAgent(store);
    const state = RunState.fromJSON(await readFile(stateFile, 'utf8'));
    for (const i of state.interruptions) state.approve(i.callId);
    let output: string | undefined;
    if (via === 'session') {
      const session = await agent.createSession(
        { sessionId: state.sessionId, userId: state.userId },
        { store },
      );
      output = (await session.resume(state)).output;
      await session.close();
    } else {
      output = (await agent.resume(state)).output;
    }
    process.stdout.write(`${JSON.stringify({ output, seen: seen.tool })}\n`);
  } finally {
    await store.close();
  }
}

await main();
