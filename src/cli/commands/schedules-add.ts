import type { CatchUpPolicy, OverlapPolicy } from '../../persistence/schedule-store.js';
import type { ScheduleInput, ScheduleTargetInput } from '../../schedules/schedule-input.js';
import { ruleText } from '../../schedules/schedule-audit.js';
import { CliUsageError } from '../shared/cli-errors.js';
import { json } from '../shared/cli-format.js';
import { intFlag, stringFlag, type Command, type CommandContext } from '../shared/command.js';
import {
  SCHEDULE_OPTIONS,
  cliActor,
  fireTime,
  withCommandSchedules,
} from '../shared/schedule-command.js';
import { parseWorkflowEvent } from '../shared/workflow-event.js';

const NAME = 'schedules add';

const usage = (message: string) => new CliUsageError(message, NAME);

/** `--catch-up none|latest|all:N`. */
function catchUpFlag(ctx: CommandContext): CatchUpPolicy | undefined {
  const raw = stringFlag(ctx, 'catch-up');
  if (raw === undefined) return undefined;
  if (raw === 'none' || raw === 'latest') return raw;
  const all = /^all:(\d+)$/.exec(raw);
  if (all) return { all: Number(all[1]) };
  throw usage(`--catch-up must be none, latest or all:N, got ${JSON.stringify(raw)}`);
}

/** `--end-at <ISO>` as a Date (its range is the schedule's check). */
function endAtFlag(ctx: CommandContext): Date | undefined {
  const raw = stringFlag(ctx, 'end-at');
  if (raw === undefined) return undefined;
  const at = new Date(raw);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(raw) || Number.isNaN(at.getTime())) {
    throw usage(
      `--end-at must be an ISO 8601 time (2027-06-30T00:00:00Z), got ${JSON.stringify(raw)}`,
    );
  }
  return at;
}

/** Flags of the other kind of target, given anyway. */
function refuseFlags(ctx: CommandContext, names: string[], kind: string): void {
  const given = names.filter((n) => ctx.flags[n] !== undefined);
  if (given.length) throw usage(`${given.map((n) => `--${n}`).join(', ')} is not for ${kind}`);
}

/** The flag `name`, required for this target. */
function required(ctx: CommandContext, name: string, what: string): string {
  const value = stringFlag(ctx, name);
  if (value === undefined || value === '') throw usage(`${what} needs --${name}`);
  return value;
}

/**
 * The target the flags name: a message into an agent's session (`--agent --session --text`,
 * `--new-session`), or an event for (`--event`) or a start of (`--start`, `--input`) a
 * workflow's instance. JSON checked here: a bad one stores nothing.
 */
function targetOf(ctx: CommandContext): ScheduleTargetInput {
  const agent = stringFlag(ctx, 'agent');
  const workflow = stringFlag(ctx, 'workflow');
  if ((agent === undefined) === (workflow === undefined)) {
    throw usage(
      'give one target: --agent <name> --session <id> --text <message>, or --workflow <name> --instance <id> with --event <json> or --start',
    );
  }
  if (agent !== undefined) {
    refuseFlags(ctx, ['instance', 'event', 'start', 'input'], 'a message target (--agent)');
    return {
      type: 'message',
      agent,
      sessionId: required(ctx, 'session', 'a message target'),
      text: required(ctx, 'text', 'a message target'),
      ...(ctx.flags['new-session'] === true ? { create: true } : {}),
    };
  }
  refuseFlags(ctx, ['session', 'text', 'new-session'], 'a workflow target (--workflow)');
  const instanceId = required(ctx, 'instance', 'a workflow target');
  const event = stringFlag(ctx, 'event');
  const start = ctx.flags['start'] === true;
  if ((event === undefined) === !start) {
    throw usage('a workflow target takes --event <json> or --start, one of them');
  }
  if (event !== undefined) {
    refuseFlags(ctx, ['input'], 'an event (it goes with --start)');
    return {
      type: 'event',
      workflow: workflow!,
      instanceId,
      event: parseWorkflowEvent(instanceId, event).event,
    };
  }
  const input = stringFlag(ctx, 'input');
  let value: unknown;
  if (input !== undefined) {
    try {
      value = JSON.parse(input);
    } catch (error) {
      throw usage(`--input must be JSON: ${(error as Error).message}`);
    }
  }
  return {
    type: 'start',
    workflow: workflow!,
    instanceId,
    ...(input === undefined ? {} : { input: value }),
  };
}

/** The schedule the flags describe; the rule, policies and limits are the handle's checks. */
function inputOf(ctx: CommandContext): ScheduleInput {
  const target = targetOf(ctx);
  const text = (name: string) => stringFlag(ctx, name);
  const catchUp = catchUpFlag(ctx);
  const endAt = endAtFlag(ctx);
  const maxRuns = intFlag(ctx, NAME, 'max-runs', 1);
  return {
    ...(text('id') === undefined ? {} : { id: text('id') }),
    ...(ctx.user === undefined ? {} : { userId: ctx.user }),
    ...(text('cron') === undefined ? {} : { cron: text('cron') }),
    ...(text('tz') === undefined ? {} : { timezone: text('tz') }),
    ...(text('every') === undefined ? {} : { every: text('every') }),
    ...(text('at') === undefined ? {} : { at: text('at') }),
    target,
    ...(text('overlap') === undefined ? {} : { overlap: text('overlap') as OverlapPolicy }),
    ...(catchUp === undefined ? {} : { catchUp }),
    ...(endAt === undefined ? {} : { endAt }),
    ...(maxRuns === undefined ? {} : { maxRuns }),
    ...(text('description') === undefined ? {} : { description: text('description') }),
  };
}

async function run(ctx: CommandContext): Promise<void> {
  // Checked before anything is opened: bad flags store nothing.
  const input = inputOf(ctx);
  const info = await withCommandSchedules(ctx, NAME, (schedules) =>
    schedules.create(input, cliActor()),
  );
  if (ctx.json) {
    ctx.io.out(json(info));
    return;
  }
  ctx.io.out(
    `created schedule ${info.id}: ${ruleText(info.rule)}, ${info.target.type} target; next ${fireTime(info.nextAt, info.rule)}\n`,
  );
}

export const schedulesAdd: Command = {
  name: 'schedules add',
  summary:
    'add a schedule (a cron in a time zone, an interval or one time) that sends a message into a session, or an event to or a start of a workflow instance',
  args: [],
  options: {
    ...SCHEDULE_OPTIONS,
    id: {
      type: 'string',
      value: 'ID',
      description: "the schedule's id, unique within the user (default: a new id)",
    },
    cron: {
      type: 'string',
      value: 'PATTERN',
      description: "a cron pattern, 5 fields (minute first) or 6 (seconds first): '0 9 * * 1'",
    },
    tz: {
      type: 'string',
      value: 'ZONE',
      description: "the IANA time zone the cron is read in (default UTC): 'Europe/Berlin'",
    },
    every: {
      type: 'string',
      value: 'INTERVAL',
      description: 'an interval from now, at least 1 s: 30s, 15m, 2h, 1d',
    },
    at: {
      type: 'string',
      value: 'ISO',
      description: 'one time, in the future: 2027-03-29T09:00:00+02:00',
    },
    agent: {
      type: 'string',
      value: 'NAME',
      description: "a message target: the agent's name (its scheduler sends the message)",
    },
    session: { type: 'string', value: 'ID', description: 'the session the message goes into' },
    text: { type: 'string', value: 'MESSAGE', description: 'the message each tick sends' },
    'new-session': {
      type: 'boolean',
      description: 'the session may not exist yet (else it must be one of the user)',
    },
    workflow: {
      type: 'string',
      value: 'NAME',
      description: "a workflow target: the workflow's name (its scheduler fires the tick)",
    },
    instance: {
      type: 'string',
      value: 'ID',
      description: 'the instance an event goes to, or the prefix of the instances --start starts',
    },
    event: {
      type: 'string',
      value: 'JSON',
      description: `the event each tick sends the instance: '{"type":"REMIND"}' or a bare type`,
    },
    start: {
      type: 'boolean',
      description: 'each tick starts an instance, id <instance>-<tick in epoch ms>',
    },
    input: { type: 'string', value: 'JSON', description: 'the input of each started instance' },
    overlap: {
      type: 'string',
      value: 'P',
      description: 'when the target is still busy: skip (default), queue or interrupt',
    },
    'catch-up': {
      type: 'string',
      value: 'P',
      description:
        'ticks missed while no scheduler ran: none, latest (default) or all:N (the latest N, in order)',
    },
    'end-at': { type: 'string', value: 'ISO', description: 'no tick after this time' },
    'max-runs': { type: 'string', value: 'N', description: 'no more ticks once N fired' },
    description: { type: 'string', value: 'TEXT', description: 'a line for humans' },
  },
  examples: [
    "agentstate schedules add --user alice --id weekly-digest --cron '0 9 * * 1' --tz Europe/Berlin --agent digest --session weekly --text 'Send the digest' --new-session",
    'agentstate schedules add --user alice --every 15m --workflow orders --instance order-7 --event \'{"type":"CHECK"}\'',
    'agentstate schedules add --user alice --at 2027-04-01T08:00:00Z --workflow report --instance q1 --start --input \'{"quarter":1}\'',
  ],
  details:
    "Ticks fire in the app: an agent's scheduler (agent.startScheduler()) fires message targets of its agent, a workflow host's (workflows().startScheduler()) its events and starts, once per tick across processes. Bad input (a cron that does not parse, an unknown zone, an --at in the past, a session of another user, an id the user has) is a typed error and nothing is stored.",
  run,
};
