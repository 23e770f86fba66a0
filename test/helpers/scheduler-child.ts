/**
 * Child process of the scheduler tests: opens the LevelDB store at `dbPath` and either raises
 * an approval with a deadline and exits (`raise`), or starts the approval scheduler with a
 * clock at `now` and reports the run it continued (`catch-up`), as one JSON line on stdout.
 *
 *   node --import tsx test/helpers/scheduler-child.ts <dbPath> '<SchedulerChildRequest JSON>'
 */
import { LevelSessionStore, type RunResult, type SessionKey } from '../../src/index.js';
import { FakeClock } from '../../src/testing.js';
import { reportChildFailure } from './child-process.js';
import { approvalAgent, callTools } from './approval-agent.js';

export interface SchedulerChildRequest {
  mode: 'raise' | 'catch-up';
  sessionId: string;
  userId: string;
  /** The fixed time of the agent's clock (epoch ms). */
  now: number;
  approvalTimeoutMs: number;
}

export interface SchedulerChildReport {
  pid: number;
  interrupted: boolean;
  output: string | undefined;
  key: SessionKey | undefined;
  executed: Record<string, number>;
  /** Tool results the model read in its last call. */
  lastResults: unknown[];
  errors: string[];
}

async function main(): Promise<void> {
  const [dbPath, json] = process.argv.slice(2);
  if (!dbPath || !json) throw new TypeError('usage: scheduler-child.ts <dbPath> <request JSON>');
  const request = JSON.parse(json) as SchedulerChildRequest;
  const store = await LevelSessionStore.open({ path: dbPath });
  const { agent, counters, model } = approvalAgent(store, {
    clock: new FakeClock(request.now),
    approvalTimeoutMs: request.approvalTimeoutMs,
  });
  const errors: string[] = [];
  const key = { sessionId: request.sessionId, userId: request.userId };
  try {
    let result: RunResult;
    let continued: SessionKey | undefined;
    if (request.mode === 'raise') {
      const email = { name: 'send_email', arguments: { to: 'bob@example.com', body: 'hi' } };
      result = await agent.run(callTools(email), key);
    } else {
      const done = new Promise<{ key: SessionKey; result: RunResult<unknown> }>((resolve) => {
        const scheduler = agent.startScheduler({
          onContinued: (event) => void scheduler.stop().then(() => resolve(event)),
          onError: (error) => errors.push(String(error)),
        });
      });
      const event = await done;
      continued = event.key;
      result = event.result as RunResult;
    }
    const last = model.calls[model.calls.length - 1];
    const report: SchedulerChildReport = {
      pid: process.pid,
      interrupted: result.interrupted,
      output: result.output,
      key: continued,
      executed: counters.executed,
      lastResults: (last?.items ?? []).filter((i) => i.type === 'tool_result'),
      errors,
    };
    process.stdout.write(`${JSON.stringify(report)}\n`);
  } finally {
    await store.close();
  }
}

main().catch(reportChildFailure);
