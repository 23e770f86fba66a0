import { isPlainName } from '../validation/plain-name.js';

/** A user message; `messageId` (default `m<step index>`) is what a retry after a crash resends. */
export interface SendStep {
  send: string;
  messageId?: string | undefined;
}

/** Approves a waiting call: by call id, or the first waiting call of a tool of that name. */
export interface ApproveStep {
  approve: string;
}

/** Rejects a waiting call (by call id or tool name); the model reads `message`. */
export interface RejectStep {
  reject: string;
  message?: string | undefined;
}

/** Moves the exploration's clock (`ExploreCrashesOptions.clock`) on by `advance` ms. */
export interface AdvanceStep {
  advance: number;
}

/** One thing that happens to the session, in order. */
export type ScenarioStep = SendStep | ApproveStep | RejectStep | AdvanceStep;

/**
 * A scripted use of an agent: what users and approvers do to one session, in order. Plain JSON,
 * so a replay file carries it whole. The agent's model must answer from the request (a
 * `ScriptedModel` with a function, not a list): a recovered run calls it again only for the
 * steps that were not journaled.
 */
export interface CrashScenario {
  /** Names the scenario in reports and replay files. */
  name: string;
  /** @default 'crash-scenario' */
  sessionId?: string | undefined;
  /** @default 'crash-user' */
  userId?: string | undefined;
  steps: readonly ScenarioStep[];
}

/** The scenario's step kind. */
export function stepKind(step: ScenarioStep): 'send' | 'approve' | 'reject' | 'advance' {
  if ('send' in step) return 'send';
  if ('approve' in step) return 'approve';
  if ('reject' in step) return 'reject';
  return 'advance';
}

/** The message id step `index` is sent with. */
export function messageIdOf(step: SendStep, index: number): string {
  return step.messageId ?? `m${index}`;
}

const text = (value: unknown): boolean => typeof value === 'string' && value !== '';

/** Checks a scenario given by a caller (or read from a replay file); `TypeError` names the field. */
export function checkScenario(
  scenario: unknown,
  where = 'exploreCrashes: scenario',
): CrashScenario {
  const s = scenario as Partial<CrashScenario> | undefined;
  if (typeof s !== 'object' || s === null) throw new TypeError(`${where} must be an object`);
  if (!text(s.name)) throw new TypeError(`${where}.name must be a non-empty string`);
  for (const field of ['sessionId', 'userId'] as const) {
    const value = s[field];
    if (value !== undefined && !isPlainName(value, 256))
      throw new TypeError(
        `${where}.${field} must be 1 to 256 characters, none a control character`,
      );
  }
  if (!Array.isArray(s.steps) || s.steps.length === 0)
    throw new TypeError(`${where}.steps must be a non-empty array`);
  s.steps.forEach((step: unknown, i) => checkStep(step, `${where}.steps[${i}]`));
  return s as CrashScenario;
}

function checkStep(step: unknown, where: string): void {
  const s = step as Record<string, unknown> | null;
  if (typeof s !== 'object' || s === null) throw new TypeError(`${where} must be an object`);
  const kinds = ['send', 'approve', 'reject', 'advance'].filter((k) => k in s);
  if (kinds.length !== 1)
    throw new TypeError(`${where} must have exactly one of send, approve, reject, advance`);
  const allowed: Record<string, string[]> = {
    send: ['send', 'messageId'],
    approve: ['approve'],
    reject: ['reject', 'message'],
    advance: ['advance'],
  };
  const kind = kinds[0]!;
  const extra = Object.keys(s).find((k) => !allowed[kind]!.includes(k));
  if (extra !== undefined)
    throw new TypeError(`${where}.${extra} is not a field of a ${kind} step`);
  if (kind === 'advance') {
    if (typeof s.advance !== 'number' || !Number.isFinite(s.advance) || s.advance < 0)
      throw new TypeError(`${where}.advance must be a number of milliseconds >= 0`);
    return;
  }
  if (!text(s[kind])) throw new TypeError(`${where}.${kind} must be a non-empty string`);
  for (const field of ['messageId', 'message'])
    if (s[field] !== undefined && !text(s[field]))
      throw new TypeError(`${where}.${field} must be a non-empty string`);
}
