/**
 * Child process of test/sessions/session-process.int.test.ts: opens the LevelDB folder `argv[2]`, runs
 * one turn `argv[4]` for alice in session `argv[3]` with an offline scripted model, and
 *   - mode `exit` (default): closes the store and exits;
 *   - mode `hold`: prints `READY <json>` (what the finished run wrote) and waits to be killed.
 * Usage: node --import tsx test/helpers/alice-process.ts <dbPath> <sessionId> <message> [exit|hold]
 */
import { Agent, LevelSessionStore } from '../../src/index.js';
import { echoModel } from './session-fixtures.js';

const [dbPath, sessionId, message, mode = 'exit'] = process.argv.slice(2);
if (!dbPath || !sessionId || !message) {
  console.error('usage: alice-process.ts <dbPath> <sessionId> <message> [exit|hold]');
  process.exit(2);
}

const store = await LevelSessionStore.open({ path: dbPath });
const agent = new Agent({ name: 'assistant', model: echoModel(), store });
const result = await agent.run(message, { sessionId, userId: 'alice' });
const record = await store.load({ sessionId, userId: 'alice' });
const history = await store.readHistory({ sessionId, userId: 'alice' });
const report = {
  output: result.output,
  version: record.version,
  historyLength: record.historyLength,
  history,
};

if (mode === 'hold') {
  // Nothing is closed: the parent kills this process with SIGKILL.
  process.stdout.write(`READY ${JSON.stringify(report)}\n`);
  setInterval(() => undefined, 60_000);
} else {
  await store.close();
  process.stdout.write(`DONE ${JSON.stringify(report)}\n`);
}
