import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Clock } from '../core/clock.js';
import type { RunContext } from '../core/run-context.js';
import {
  InvalidScheduleError,
  ScheduleExistsError,
  ScheduleLimitError,
  ScheduleNotFoundError,
} from '../errors/schedule-errors.js';
import type { OverlapPolicy } from '../persistence/schedule-store.js';
import type { SessionStore } from '../persistence/session-store.js';
import { SESSION_STORE_METHODS } from '../persistence/store-supports.js';
import { tool, type AnyTool, type NeedsApproval } from '../tools/tool.js';
import { toolkit, type Toolkit } from '../tools/toolkit.js';
import { OptionChecker, isObject, optionNames } from '../validation/option-checks.js';
import type { ScheduleActor } from './schedule-audit.js';
import {
  CancelSchedule,
  CreateSchedule,
  NewSession,
  scheduleForModel,
  type CancelScheduleArguments,
  type CreateScheduleArguments,
} from './schedule-tool-arguments.js';
import { openSchedules, type ScheduleInfo, type SchedulesHandle } from './schedules-handle.js';

/** The names the model calls the schedule tools by. */
export const CREATE_SCHEDULE_TOOL = 'create_schedule';
export const LIST_SCHEDULES_TOOL = 'list_schedules';
export const CANCEL_SCHEDULE_TOOL = 'cancel_schedule';

/** Options of `scheduleTools`. */
export interface ScheduleToolsOptions {
  /** The store the agent runs on, which keeps the schedules (a tool does not see its run's store). */
  store: SessionStore;
  /**
   * The name of the agent given these tools: the target of the schedules they create, whose
   * scheduler (`agent.startScheduler()`) fires them. The tools list and cancel only the
   * schedules of its user that message this agent.
   */
  agent: string;
  /** The clock of "now" (an `at` in the past, audit times); give the agent's. @default the system clock */
  clock?: Clock | undefined;
  /**
   * Where a schedule's ticks go: `'own-session'`, the session of the run that created it;
   * `'new-sessions'` also lets the model send them to a new session of their own
   * (`newSession: true`, id `schedule-<id>`). @default 'own-session'
   */
  allowTargets?: 'own-session' | 'new-sessions' | undefined;
  /**
   * The most schedules of one user (for this agent, not ended) the model may have; past it
   * `create_schedule` answers `ScheduleLimitError` and stores nothing. Checked before each
   * create, one create at a time per session. @default 20
   */
  maxSchedulesPerUser?: number | undefined;
  /**
   * Which calls wait for a human's approval, like any tool's `needsApproval`: a value applies to
   * `create_schedule`; `{ create, cancel }` sets each. @default false
   */
  needsApproval?:
    | NeedsApproval<CreateScheduleArguments>
    | {
        create?: NeedsApproval<CreateScheduleArguments> | undefined;
        cancel?: NeedsApproval<CancelScheduleArguments> | undefined;
      }
    | undefined;
  /** What a tick does when the session is still busy. @default 'queue' */
  overlap?: OverlapPolicy | undefined;
}

const OPTION_NAMES = optionNames<ScheduleToolsOptions>({
  store: true,
  agent: true,
  clock: true,
  allowTargets: true,
  maxSchedulesPerUser: true,
  needsApproval: true,
  overlap: true,
});

const DEFAULT_LIMIT = 20;
/** Schedules shown to the model by `list_schedules` at most. */
const LISTED = 50;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T/;

/** A schedule's id from the run and the call: the same when the call runs again after a crash. */
function scheduleIdOf(context: RunContext, callId: string): string {
  const digest = createHash('sha256').update(`${context.runId}\n${callId}`).digest('hex');
  return `s-${digest.slice(0, 16)}`;
}

function checkOptions(options: ScheduleToolsOptions): void {
  new OptionChecker('scheduleTools()', options ?? null, OPTION_NAMES)
    .implements('store', 'SessionStore', SESSION_STORE_METHODS, true)
    .nonEmptyString('agent', true)
    .implements('clock', 'Clock', ['now'])
    .check('allowTargets', "'own-session' or 'new-sessions'", (v) =>
      ['own-session', 'new-sessions'].includes(v as string),
    )
    .positiveInteger('maxSchedulesPerUser')
    .check(
      'needsApproval',
      'a boolean, a function, or { create, cancel } of those',
      (v) =>
        ['boolean', 'function'].includes(typeof v) ||
        (isObject(v) &&
          Object.entries(v).every(
            ([k, x]) =>
              ['create', 'cancel'].includes(k) &&
              (x === undefined || ['boolean', 'function'].includes(typeof x)),
          )),
    )
    .check('overlap', "'skip', 'queue' or 'interrupt'", (v) =>
      ['skip', 'queue', 'interrupt'].includes(v as string),
    );
}

/**
 * The tools an app may give an agent's model to schedule work for its user:
 * `create_schedule` (a cron in an IANA time zone, an interval or one time; the message the
 * agent receives at each tick), `list_schedules` and `cancel_schedule`. They act for the
 * run's user (its RunContext: never a user the model names) and send the ticks into the run's
 * own session, as messages to `agent`; its scheduler (`agent.startScheduler()`) fires them.
 * Bad arguments (a cron that does not parse, an unknown zone, `at` in the past) come back to
 * the model as the tool's error and store nothing. Under the agent's permission policy and
 * `needsApproval` like any tool; each change is audited (`kind: 'schedule'`).
 * `SchedulesUnsupportedError` when the store keeps no schedules.
 * @example
 * const agent = new Agent({ name: 'assistant', model, store,
 *   toolkits: [scheduleTools({ store, agent: 'assistant', needsApproval: true })] });
 */
export function scheduleTools(options: ScheduleToolsOptions): Toolkit {
  checkOptions(options);
  const { agent } = options;
  const schedules = openSchedules(options.store, { clock: options.clock });
  const limit = options.maxSchedulesPerUser ?? DEFAULT_LIMIT;
  const approval = options.needsApproval;
  const perTool = isObject(approval) ? approval : { create: approval, cancel: undefined };
  const newSessions = options.allowTargets === 'new-sessions';
  const overlap = options.overlap ?? 'queue';
  return toolkit({
    name: 'schedules',
    create: () => {
      // One create at a time in a session, so calls of one turn count each other.
      let creating: Promise<unknown> = Promise.resolve();
      const create = tool({
        name: CREATE_SCHEDULE_TOOL,
        description: `Schedule a message to yourself: a cron in a time zone, an interval, or one time. When it fires you receive the text in ${newSessions ? 'this conversation (or a new one)' : 'this conversation'} and act on it.`,
        parameters: newSessions ? CreateSchedule.extend(NewSession.shape) : CreateSchedule,
        ...(perTool.create === undefined ? {} : { needsApproval: perTool.create }),
        idempotent: true,
        execute: (args: CreateScheduleArguments, { context, callId }) => {
          const run = creating.then(() =>
            createFor(schedules, { agent, limit, overlap, newSessions }, args, context, callId),
          );
          creating = run.catch(() => undefined);
          return run;
        },
      });
      const list = tool({
        name: LIST_SCHEDULES_TOOL,
        description: "List the user's schedules: id, rule, message, next time, last outcome.",
        parameters: z.object({}),
        execute: async (_args, { context }) => {
          const mine = await schedulesOf(schedules, context.userId, agent);
          return { schedules: mine.slice(0, LISTED).map(scheduleForModel), total: mine.length };
        },
      });
      const cancel = tool({
        name: CANCEL_SCHEDULE_TOOL,
        description: 'Cancel one of the user’s schedules by its id (from list_schedules).',
        parameters: CancelSchedule,
        ...(perTool.cancel === undefined ? {} : { needsApproval: perTool.cancel }),
        execute: async ({ id }, { context }) => {
          const scope = { userId: context.userId };
          const found = await schedules.get(id, scope);
          if (!messagesAgent(found, agent)) throw new ScheduleNotFoundError(id);
          await schedules.delete(id, { ...scope, ...actorOf(agent, context) });
          return `Cancelled schedule "${id}".`;
        },
      });
      const tools: AnyTool[] = [create, list, cancel];
      return { tools };
    },
  });
}

/** Whether a schedule's ticks are messages to `agent`: the ones these tools manage. */
function messagesAgent(info: ScheduleInfo, agent: string): boolean {
  return info.target.type === 'message' && info.target.agent === agent;
}

/** Who made a change, as its audit entry names them. */
function actorOf(agent: string, context: RunContext): ScheduleActor {
  return { by: `agent ${agent} (run ${context.runId})` };
}

/** The user's schedules messaging `agent`, in id order. */
async function schedulesOf(
  schedules: SchedulesHandle,
  userId: string | undefined,
  agent: string,
): Promise<ScheduleInfo[]> {
  const out: ScheduleInfo[] = [];
  let cursor: string | undefined;
  do {
    const page = await schedules.list({ userId, limit: 1000, cursor });
    out.push(...page.schedules.filter((s) => messagesAgent(s, agent)));
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return out;
}

/** An ISO 8601 time as epoch ms, or `InvalidScheduleError` naming `field`. */
function isoTime(id: string, field: string, value: string): number {
  const ms = ISO_TIME.test(value) ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(ms)) {
    throw new InvalidScheduleError(id, field, `"${value}" is not an ISO 8601 time`);
  }
  return ms;
}

async function createFor(
  schedules: SchedulesHandle,
  setup: { agent: string; limit: number; overlap: OverlapPolicy; newSessions: boolean },
  args: CreateScheduleArguments,
  context: RunContext,
  callId: string,
) {
  const { sessionId, userId } = context;
  if (sessionId === undefined) {
    throw new Error(`"${CREATE_SCHEDULE_TOOL}" runs only in a session's run`);
  }
  const id = scheduleIdOf(context, callId);
  const existing = await schedules.get(id, { userId }).catch((error: unknown) => {
    if (error instanceof ScheduleNotFoundError) return undefined;
    throw error;
  });
  // The same call run again (its process stopped after the write): it took effect once.
  if (existing) return { created: scheduleForModel(existing) };
  const live = (await schedulesOf(schedules, userId, setup.agent)).filter(
    (s) => s.nextAt !== undefined || s.firing.length > 0,
  );
  if (live.length >= setup.limit) throw new ScheduleLimitError(setup.limit);
  const target = {
    type: 'message' as const,
    agent: setup.agent,
    sessionId: setup.newSessions && args.newSession === true ? `schedule-${id}` : sessionId,
    text: args.text,
    // The run's own session is its user's (a new one is made by the first tick).
    create: true,
  };
  try {
    const info = await schedules.create(
      {
        id,
        userId,
        cron: args.cron,
        timezone: args.timezone,
        every: args.every,
        at: args.at,
        endAt: args.endAt === undefined ? undefined : isoTime(id, 'endAt', args.endAt),
        maxRuns: args.maxRuns,
        description: args.description,
        overlap: setup.overlap,
        target,
      },
      actorOf(setup.agent, context),
    );
    return { created: scheduleForModel(info) };
  } catch (error) {
    // Created meanwhile by the same call's other run: the same schedule.
    if (error instanceof ScheduleExistsError) {
      return { created: scheduleForModel(await schedules.get(id, { userId })) };
    }
    throw error;
  }
}
