/**
 * Child process of test/persistence/postgres/postgres-decisions.int.test.ts: one process of an app on PostgreSQL whose
 * runs wait for approvals. Reads JSON commands from stdin, prints JSON events.
 * Usage: node --import tsx test/helpers/pg-approval-worker.ts <url> <schema> <owner>
 *
 * Commands: run {sessionId, to} (a run that asks to send an email, paused for approval: emits
 * `paused` with its RunState) | submit {state, approve} (records the decision, runs nothing) |
 * schedule {pollIntervalMs} (starts the scheduler: emits `continued` per run it continues).
 */
import { createInterface } from 'node:readline';
import { RunState } from '../../src/index.js';
import { PostgresSessionStore } from '../../src/postgres.js';
import { approvalAgent, callTools } from './approval-agent.js';

const [url, schema, owner] = process.argv.slice(2);
if (!url || !schema || !owner) {
  console.error('usage: pg-approval-worker.ts <url> <schema> <owner>');
  process.exit(2);
}
const emit = (event: Record<string, unknown>): void => {
  process.stdout.write(`${JSON.stringify(event)}\n`);
};
const store = await PostgresSessionStore.open({ connectionString: url, schema, poolSize: 4 });
const { agent, counters } = approvalAgent(store, { lease: { owner, ttlMs: 30_000 } });
const userId = 'u1';

interface Command {
  cmd: string;
  sessionId?: string;
  to?: string;
  state?: unknown;
  approve?: boolean;
  pollIntervalMs?: number;
}

async function handle(command: Command): Promise<void> {
  switch (command.cmd) {
    case 'run': {
      const email = { name: 'send_email', arguments: { to: command.to ?? 'a@x.io', body: 'hi' } };
      const result = await agent.run(callTools(email), { sessionId: command.sessionId, userId });
      emit({ event: 'paused', interrupted: result.interrupted, state: result.state.toJSON() });
      return;
    }
    case 'submit': {
      const state = RunState.fromJSON(command.state);
      const callId = state.interruptions[0]!.callId;
      await agent.submitDecisions(
        command.approve === false ? state.reject(callId, { message: 'no' }) : state.approve(callId),
      );
      emit({ event: 'submitted', pid: process.pid });
      return;
    }
    case 'schedule':
      agent.startScheduler({
        pollIntervalMs: command.pollIntervalMs,
        onContinued: ({ key, result, reason }) =>
          emit({
            event: 'continued',
            pid: process.pid,
            sessionId: key.sessionId,
            reason,
            output: result.output,
            executed: counters.executed,
          }),
        onError: (error) => emit({ event: 'scheduler-error', message: String(error) }),
      });
      emit({ event: 'scheduling' });
      return;
  }
}

emit({ event: 'ready', pid: process.pid });
for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim()) {
    await handle(JSON.parse(line) as Command).catch((error: unknown) =>
      emit({ event: 'failed', name: (error as Error).name, message: (error as Error).message }),
    );
  }
}
