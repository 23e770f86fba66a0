/**
 * Child process of the approval tests: opens the LevelDB store a parent process left behind,
 * applies approval decisions to a RunState read from a file (or resumes a session by id) and
 * prints the outcome as one JSON line on stdout.
 *
 *   node --import tsx test/helpers/approval-child.ts <dbPath> '<ChildRequest JSON>'
 */
import { readFile } from 'node:fs/promises';
import { LevelSessionStore, RunState, type RunResult } from '../../src/index.js';
import { FakeClock } from '../../src/testing.js';
import { reportChildFailure } from './child-process.js';
import { approvalAgent } from './approval-agent.js';

export interface ChildRequest {
  /** A file holding `JSON.stringify(result.state)`. */
  stateFile?: string;
  /** Resume this session (with `userId`) instead of a RunState. */
  sessionId?: string;
  userId?: string;
  decisions?: { callId: string; approve: boolean; message?: string; always?: boolean }[];
  /** A fixed time for the agent's clock (epoch ms). */
  now?: number;
  approvalTimeoutMs?: number;
}

export interface ChildReport {
  pid: number;
  output: string | undefined;
  interrupted: boolean;
  newItems: RunResult['newItems'];
  usage: RunResult['usage'];
  executed: Record<string, number>;
  checked: number;
  modelCalls: number;
}

async function main(): Promise<void> {
  const [dbPath, json] = process.argv.slice(2);
  if (!dbPath || !json) throw new TypeError('usage: approval-child.ts <dbPath> <request JSON>');
  const request = JSON.parse(json) as ChildRequest;
  const store = await LevelSessionStore.open({ path: dbPath });
  try {
    const { agent, counters, model } = approvalAgent(store, {
      ...(request.now === undefined ? {} : { clock: new FakeClock(request.now) }),
      approvalTimeoutMs: request.approvalTimeoutMs,
    });
    let result: RunResult;
    if (request.stateFile) {
      const state = RunState.fromJSON(await readFile(request.stateFile, 'utf8'));
      for (const d of request.decisions ?? []) {
        if (d.approve) state.approve(d.callId, { always: d.always });
        else state.reject(d.callId, { message: d.message, always: d.always });
      }
      result = await agent.resume(state);
    } else {
      result = await agent.resume(request.sessionId ?? '', { userId: request.userId });
    }
    const report: ChildReport = {
      pid: process.pid,
      output: result.output,
      interrupted: result.interrupted,
      newItems: result.newItems,
      usage: result.usage,
      executed: counters.executed,
      checked: counters.checked,
      modelCalls: model.calls.length,
    };
    process.stdout.write(`${JSON.stringify(report)}\n`);
  } finally {
    await store.close();
  }
}

main().catch(reportChildFailure);
