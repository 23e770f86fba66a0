/**
 * What a live frame means in words, for people: "billing: tool issue_refund started",
 * "billing: model answered (120 in / 30 out)". Read from the actor's input and output as the
 * run machine hands them to its step actors (`machines/step-actor-io.ts`): the agent, the
 * step, a tool's name, a model step's token counts and the names of the tools it asked for.
 * Never an argument, a message or a tool's output.
 */
export interface LiveEntry {
  /** The agent the actor works for. */
  agent?: string | undefined;
  /** The journal step of a step actor (the timeline's `#step`). */
  step?: number | undefined;
  /** The frame in words; absent for a frame that says nothing new to a person. */
  text?: string | undefined;
}

/** The parts of an actor's snapshot the entry reads. */
export interface ActorView {
  src: string;
  /** The type of the event of an `@xstate.event` frame (`xstate.init`: the actor started). */
  eventType?: string | undefined;
  status?: string | undefined;
  state?: string | undefined;
  input?: unknown;
  /** A step's output and error, from its promise's resolve and reject events. */
  output?: unknown;
  error?: unknown;
  context?: unknown;
  /** The context of the run that holds a step actor. */
  parentContext?: unknown;
}

type StepInput = {
  runId?: string;
  step?: number;
  path?: string[];
  agent?: string;
  call?: { name?: string };
  calls?: unknown[];
  /** A tool call's rejection: the call does not run. */
  rejection?: unknown;
  /** A durable timer's deadline (`Number.MAX_SAFE_INTEGER`: none, it waits for a decision only). */
  deadline?: number;
};
type RunContextView = { agentName?: string; agentPath?: string[]; activeAgent?: string };

const record = (v: unknown): Record<string, unknown> | undefined =>
  typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : undefined;

/** The agent of a run's context: the one it was handed to, else its own. */
function agentOfRun(context: unknown): string | undefined {
  const ctx = record(context) as RunContextView | undefined;
  if (!ctx) return undefined;
  return ctx.activeAgent ?? ctx.agentPath?.[ctx.agentPath.length - 1] ?? ctx.agentName;
}

/** Words for the run machine's states a person waits on. */
const RUN_STATES: Record<string, string> = {
  awaitingApproval: 'run waits for a decision',
  interrupted: 'run paused',
  completed: 'run completed',
  failed: 'run failed',
  cancelled: 'run cancelled',
};

/** Words for the session machine's states. */
const SESSION_STATES: Record<string, string> = {
  'active.idle': 'session idle',
  'active.running': 'session running',
  suspended: 'session suspended',
  completed: 'session completed',
  failed: 'session failed',
};

/**
 * The entry of a frame of type `type` about the actor `actor`: a step actor's start (its
 * `xstate.init` event) and its end (its promise's `xstate.promise.resolve` or `.reject`
 * event, which comes before its run moves on: the feed keeps the order things happened); a
 * run's or the session's state.
 */
export function liveEntry(type: string, actor: ActorView): LiveEntry {
  if (actor.src === 'run' || actor.src === 'subRun') {
    const agent = agentOfRun(actor.context);
    if (type === '@xstate.event' && actor.eventType === 'xstate.init') {
      const parent = agentOfRun(actor.parentContext);
      return {
        agent,
        text:
          actor.src === 'subRun'
            ? `${parent ?? 'run'}: sub-agent ${agent ?? ''} started`
            : `${agent ?? 'run'}: run started`,
      };
    }
    const words = type === '@xstate.snapshot' && actor.state ? RUN_STATES[actor.state] : undefined;
    return { agent, ...(words ? { text: `${agent ?? 'run'}: ${words}` } : {}) };
  }
  if (actor.src === 'session') {
    const words =
      type === '@xstate.snapshot' && actor.state ? SESSION_STATES[actor.state] : undefined;
    return words ? { text: words } : {};
  }
  const input = (record(actor.input) ?? {}) as StepInput;
  const agent =
    input.agent ?? input.path?.[input.path.length - 1] ?? agentOfRun(actor.parentContext);
  const step = typeof input.step === 'number' ? input.step : undefined;
  const what = stepWords(type, actor, input);
  return { agent, step, ...(what ? { text: `${agent ?? 'run'}: ${what}` } : {}) };
}

/** A step actor's start or end in words (nothing for its other frames). */
function stepWords(type: string, actor: ActorView, input: StepInput): string | undefined {
  const event = type === '@xstate.event' ? actor.eventType : undefined;
  const started = event === 'xstate.init';
  const rejected = event === 'xstate.promise.reject';
  const ended = event === 'xstate.promise.resolve' || rejected;
  if (!started && !ended) return undefined;
  const failed = rejected ? `: ${errorCode(actor.error)}` : '';
  switch (actor.src) {
    case 'modelStep': {
      if (started) return 'model called';
      if (failed) return `model failed${failed}`;
      const out = record(actor.output);
      const usage = record(out?.['usage']);
      const calls = Array.isArray(out?.['toolCalls'])
        ? (out['toolCalls'] as { name?: unknown }[]).map((c) => String(c.name))
        : [];
      const tokens = usage
        ? ` (${num(usage['inputTokens'])} in / ${num(usage['outputTokens'])} out)`
        : '';
      return `model answered${tokens}${calls.length ? `, asks for ${calls.join(', ')}` : ''}`;
    }
    case 'toolCall': {
      const name = input.call?.name ?? 'tool';
      if (started) return `tool ${name} started`;
      if (!failed && input.rejection !== undefined) return `tool ${name} rejected`;
      const isError = record(actor.output)?.['isError'] === true;
      return failed || isError ? `tool ${name} failed${failed}` : `tool ${name} finished`;
    }
    case 'approvalCheck':
      return started
        ? 'approval check started'
        : `approval check ${failed ? `failed${failed}` : 'done'}`;
    case 'guardrailCheck':
      return started ? 'guardrails started' : `guardrails ${failed ? `failed${failed}` : 'done'}`;
    case 'durableTimer': {
      // The run's wait for a human's decision; the timer fires only at an approval deadline.
      const deadline = input.deadline;
      const due =
        typeof deadline === 'number' && deadline < Number.MAX_SAFE_INTEGER
          ? ` (deadline ${new Date(deadline).toISOString()})`
          : '';
      return started ? `waits for approval${due}` : 'approval deadline reached';
    }
    default:
      return undefined;
  }
}

const num = (v: unknown): string => (typeof v === 'number' ? String(v) : '?');

function errorCode(error: unknown): string {
  const e = record(error);
  return typeof e?.['code'] === 'string'
    ? e['code']
    : typeof e?.['name'] === 'string'
      ? e['name']
      : 'error';
}
