/**
 * Child process of the poison-run test:
 *   node --import tsx test/helpers/poison-child.ts <dbDir> <effectsFile> <hookFile> <seed|start|recover>
 *
 * - `seed`: runs the sessions the poison run must not touch: `calm` of ann and `calm` of bob
 *   (each to its end), and `waiting` of ann, paused on an approval.
 * - `start`: runs session `poison` of mallory: the model asks for `detonate`, whose execute
 *   appends `<callId> <pid>` to the effects file and then SIGKILLs its own process.
 * - `recover`: `runtime.recover()` as a new process would on start; it restores the poison run,
 *   whose tool kills this process too, until `maxRecoveries` (`POISON_MAX_RECOVERIES`) stops
 *   it. Prints `result <json>`: what recover() returned, errors as their stored form.
 *
 * `onRecoveryExhausted` appends `<code> <failedStep json> <pid>` to the hook file.
 */
import { appendFileSync } from 'node:fs';
import { z } from 'zod';
import { Agent, AgentStateError, LevelSessionStore, tool } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';

export const POISON = { sessionId: 'poison', userId: 'mallory' };

async function main(): Promise<void> {
  const [dbDir, effectsFile, hookFile, mode] = process.argv.slice(2);
  if (!dbDir || !effectsFile || !hookFile || !['seed', 'start', 'recover'].includes(mode ?? '')) {
    throw new Error('usage: poison-child.ts <dbDir> <effectsFile> <hookFile> <seed|start|recover>');
  }
  const store = await LevelSessionStore.open({ path: dbDir });
  const detonate = tool({
    name: 'detonate',
    description: 'Kills the process that runs it',
    parameters: z.object({}),
    // Run again after each crash (a call in doubt is not, by default): what makes it a poison.
    onInterrupted: 'retry',
    execute(_args, { callId }) {
      appendFileSync(effectsFile, `${callId} ${process.pid}\n`);
      process.kill(process.pid, 'SIGKILL');
      return 'unreachable';
    },
  });
  const guarded = tool({
    name: 'guarded',
    description: 'Needs an approval',
    parameters: z.object({}),
    needsApproval: true,
    execute: () => 'ran',
  });
  const model = new ScriptedModel((request) => {
    const said = request.items.find((i) => i.type === 'message' && i.role === 'user');
    const text = said && 'content' in said && typeof said.content === 'string' ? said.content : '';
    if (request.items.some((i) => i.type === 'tool_result')) return { text: 'after' };
    if (text === 'boom')
      return { toolCalls: [{ name: 'detonate', arguments: {}, callId: 'boom-1' }] };
    if (text === 'ask') return { toolCalls: [{ name: 'guarded', arguments: {}, callId: 'ask-1' }] };
    return { text: `calm: ${text}` };
  });
  const maxRecoveries = Number(process.env.POISON_MAX_RECOVERIES ?? '3');
  const agent = new Agent({
    name: 'poisoned',
    store,
    model,
    tools: [detonate, guarded],
    maxRecoveries,
    onRecoveryExhausted: (error) => {
      appendFileSync(
        hookFile,
        `${error.code} ${JSON.stringify(error.failedStep)} ${process.pid}\n`,
      );
    },
  });
  if (mode === 'seed') {
    await agent.run('hello', { sessionId: 'calm', userId: 'ann' });
    await agent.run('hi', { sessionId: 'calm', userId: 'bob' });
    await agent.run('ask', { sessionId: 'waiting', userId: 'ann' });
  } else if (mode === 'start') {
    await agent.run('boom', POISON);
    throw new Error('the poison run returned');
  } else {
    const runtime = agent.runtimeFor(store);
    const recovered = [];
    for (const userId of ['ann', 'bob', 'mallory']) {
      for (const r of await runtime.recover({ olderThan: 0, userId })) {
        recovered.push({
          key: r.key,
          error: r.error instanceof AgentStateError ? r.error.toJSON() : String(r.error),
          output: r.result?.output,
        });
      }
    }
    process.stdout.write(`result ${JSON.stringify(recovered)}\n`);
  }
  await store.close();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(
      `poison-child failed: ${error instanceof Error ? error.stack : String(error)}\n`,
    );
    process.exit(1);
  },
);
