/**
 * Schedules: the app creates a daily digest (08:00 in Berlin), alice asks the assistant for a
 * reminder and the model creates it through `create_schedule` (a human approves it first), and
 * the agent's scheduler fires both across four simulated days, over the night summer time
 * starts (the digest moves from 07:00Z to 06:00Z and stays at 08:00 in Berlin). Then the runs
 * the ticks started are listed with the schedule each came from.
 *
 *   npx tsx examples/schedules.ts
 *
 * Offline and at once: the model is scripted and time is a `FakeClock` the example moves from
 * one due tick to the next. Everything lives in LevelDB under AGENTSTATE_DIR (a temp folder,
 * removed at the end, when unset).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import {
  Agent,
  LevelSessionStore,
  contentText,
  getRunContext,
  openSchedules,
  scheduleTools,
  tool,
  type Item,
  type SchedulesHandle,
} from '../src/index.js';
import { FakeClock, ScriptedModel, type ScriptedResponse } from '../src/testing.js';
import { say } from './processes.js';

const USER = 'alice';
const START = Date.parse('2026-03-27T06:00:00Z'); // Friday, 07:00 in Berlin
const END = Date.parse('2026-03-30T22:00:00Z'); // Monday night
const ASK = 'Remind me on Sunday at 10:00 to call Bob.';

/** A time as Berlin's wall clock and as UTC: `Sun 29 Mar 08:00 Berlin (06:00Z)`. */
function berlin(at: number): string {
  const local = new Intl.DateTimeFormat('en-GB', {
    timeZone: 'Europe/Berlin',
    weekday: 'short',
    day: '2-digit',
    month: 'short',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  })
    .format(at)
    .replace(',', '');
  return `${local} Berlin (${new Date(at).toISOString().slice(11, 16)}Z)`;
}

/** The items after the last user message, and that message's text. */
function turn(items: Item[]): { asked: string; since: Item[] } {
  const last = items.findLastIndex((i) => i.type === 'message' && i.role === 'user');
  const message = items[last];
  const asked = message?.type === 'message' ? contentText(message.content) : '';
  return { asked, since: items.slice(last + 1) };
}

/** An offline stand-in for a real model: what it does for each message it is sent. */
const model = new ScriptedModel((request): ScriptedResponse => {
  const { asked, since } = turn(request.items);
  const result = since.find((i) => i.type === 'tool_result');
  if (result?.type === 'tool_result') {
    if (result.isError) return { text: `That did not work: ${result.output}` };
    if (result.name === 'create_schedule') {
      const { created } = JSON.parse(result.output) as { created: { id: string; next: string } };
      return { text: `I will remind you on Sunday at 10:00 (schedule ${created.id}).` };
    }
    return { text: result.output };
  }
  if (asked === ASK) {
    const at = '2026-03-29T10:00:00+02:00';
    const reminder = { at, text: 'Reminder: call Bob', description: 'call Bob' };
    return { toolCalls: [{ name: 'create_schedule', arguments: reminder }] };
  }
  if (asked.startsWith('Reminder: ')) {
    return { toolCalls: [{ name: 'notify', arguments: { text: asked.slice(10) } }] };
  }
  if (asked === 'Send the daily digest') return { toolCalls: [{ name: 'send_digest' }] };
  return { text: 'OK.' };
});

/** Where a run came from: the schedule and tick in its RunContext's metadata. */
function scheduledBy(): string {
  const schedule = getRunContext().get<{ id: string; tick: number }>('schedule');
  return schedule ? `schedule ${schedule.id}, tick ${berlin(schedule.tick)}` : 'no schedule';
}

const sendDigest = tool({
  name: 'send_digest',
  description: "Sends the user's daily digest",
  parameters: z.object({}),
  execute: () => `Digest sent (${scheduledBy()}).`,
});

const notify = tool({
  name: 'notify',
  description: 'Sends the user a notification',
  parameters: z.object({ text: z.string() }),
  execute: ({ text }) => `Notified alice: "${text}" (${scheduledBy()}).`,
});

/** Moves the clock to each due tick up to `end` and waits until the scheduler settled it. */
async function fireUntil(
  clock: FakeClock,
  schedules: SchedulesHandle,
  end: number,
  onTick: (id: string, tick: number) => Promise<void>,
): Promise<void> {
  for (;;) {
    const { schedules: all } = await schedules.list({ userId: USER });
    const next = all
      .filter((s) => s.nextAt !== undefined && s.nextAt <= end)
      .sort((a, b) => a.nextAt! - b.nextAt!)[0];
    if (!next) return;
    const tick = next.nextAt!;
    clock.set(tick);
    const bound = performance.now() + 30_000;
    while ((await schedules.get(next.id, { userId: USER })).lastTick?.tick !== tick) {
      if (performance.now() > bound) throw new Error(`the tick of ${next.id} did not settle`);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await onTick(next.id, tick);
  }
}

async function main(store: LevelSessionStore): Promise<void> {
  const clock = new FakeClock(START);
  const schedules = openSchedules(store, { clock });
  const assistant = new Agent({
    name: 'assistant',
    instructions: "You are alice's assistant.",
    model,
    store,
    clock,
    tools: [sendDigest, notify],
    toolkits: [scheduleTools({ store, agent: 'assistant', clock, needsApproval: true })],
  });
  say(`It is ${berlin(clock.now())}.`);

  // 1. The app: a digest every day at 08:00 in Berlin, into a session of its own.
  const digest = await schedules.create(
    {
      id: 'daily-digest',
      userId: USER,
      cron: '0 8 * * *',
      timezone: 'Europe/Berlin',
      description: 'the daily digest',
      target: {
        type: 'message',
        agent: 'assistant',
        sessionId: 'alice-digest',
        text: 'Send the daily digest',
        create: true,
      },
    },
    { by: 'the app' },
  );
  say(
    `The app created "${digest.id}": 08:00 daily in Europe/Berlin, next ${berlin(digest.nextAt!)}.`,
  );

  // 2. The model: alice asks for a reminder; create_schedule waits for a human's approval.
  say(`alice (alice-chat)> ${ASK}`);
  const asked = await assistant.run(ASK, { sessionId: 'alice-chat', userId: USER });
  for (const call of asked.interruptions) {
    say(`The run paused for approval: ${call.toolName} ${JSON.stringify(call.arguments)}`);
  }
  const approved = await assistant.approve('alice-chat', asked.interruptions[0]!.callId, {
    userId: USER,
    by: 'carol',
  });
  say(`carol approved. assistant (alice-chat)> ${String(approved.output)}`);

  say('Schedules of alice:');
  for (const s of (await schedules.list({ userId: USER })).schedules) {
    say(`  ${s.id}  ${s.description ?? ''}  next ${berlin(s.nextAt!)}`);
  }

  // 3. The scheduler fires both, days passing at once.
  const scheduler = assistant.startScheduler({ schedules: { pollMs: 3_600_000 } });
  try {
    await fireUntil(clock, schedules, END, async (id, tick) => {
      const { lastTick } = await schedules.get(id, { userId: USER });
      const answer = await lastAnswer(store, lastTick!.sessionId!);
      say(
        `${berlin(tick)}: ${id} ${lastTick!.outcome} run ${lastTick!.runId} in ${lastTick!.sessionId}`,
      );
      say(`  assistant> ${answer}`);
    });
  } finally {
    await scheduler.stop();
  }

  // 4. The runs the ticks started, from the audit log, with their schedule.
  say('Runs started by schedules:');
  const { entries } = await store.readAudit({ userId: USER, kind: 'schedule' });
  for (const e of entries.filter((e) => e.action === 'tick')) {
    say(`  run ${e.runId}  session ${e.sessionId}  ${e.summary}`);
  }
  const left = (await schedules.list({ userId: USER })).schedules;
  say(
    `Left: ${left.map((s) => `${s.id} (fired ${s.runs}, ${s.nextAt === undefined ? 'ended' : `next ${berlin(s.nextAt)}`})`).join(', ')}.`,
  );
}

/** The assistant's last answer in a session. */
async function lastAnswer(store: LevelSessionStore, sessionId: string): Promise<string> {
  const history = await store.readHistory({ sessionId, userId: USER });
  const answer = history.findLast((i) => i.type === 'message' && i.role === 'assistant');
  return answer?.type === 'message' ? contentText(answer.content) : '';
}

async function run(): Promise<void> {
  const given = process.env['AGENTSTATE_DIR'];
  const dir = given ?? (await mkdtemp(join(tmpdir(), 'agentstate-schedules-')));
  const store = await LevelSessionStore.open({ path: join(dir, 'db') });
  try {
    await main(store);
  } finally {
    await store.close();
    if (!given) await rm(dir, { recursive: true, force: true });
  }
}

run().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
