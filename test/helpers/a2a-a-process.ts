import { Agent, LevelSessionStore } from '../../src/index.js';
import { remoteAgent } from '../../src/a2a.js';
import { ScriptedModel } from '../../src/testing.js';
import { lastResult } from './sub-agent-fixtures.js';

/**
 * Process A of the two-process A2A tests: agent A, on the LevelDB folder argv[2], asks the
 * remote agent B (argv[3], its URL) to count the invoices and answers with what B said.
 * argv[4]: `start` runs session `s` from its first message, `resume` resumes it (after a crash).
 * Prints `{ event: 'done', output, usage }` when the run ends.
 */
const [db, url, mode] = process.argv.slice(2) as [string, string, 'start' | 'resume'];
const store = await LevelSessionStore.open({ path: db });
const b = remoteAgent({ name: 'b', url });
const model = new ScriptedModel((request) => {
  const said = lastResult(request);
  return said === undefined
    ? { toolCalls: [{ name: 'ask_b', arguments: { input: 'count the invoices' } }] }
    : { text: `A heard: ${said}` };
});
const a = new Agent({
  name: 'a',
  model,
  store,
  tools: [b.asTool({ name: 'ask_b', description: 'Asks agent B' })],
});
const result = mode === 'start' ? await a.run('go', { sessionId: 's' }) : await a.resume('s');
process.stdout.write(
  `${JSON.stringify({ event: 'done', output: result.output, usage: result.usage, interrupted: result.interrupted, error: result.error?.message })}\n`,
);
await store.close();
