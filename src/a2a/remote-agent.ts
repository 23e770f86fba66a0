import type { AgentCard } from '@a2a-js/sdk';
import { z } from 'zod';
import { Agent } from '../agent/agent.js';
import { tool } from '../tools/tool.js';
import { OptionChecker, optionNames } from '../validation/option-checks.js';
import { A2AModel, REMOTE_INPUT_TOOL } from './a2a-model.js';

/** Options of `remoteAgent`. */
export interface RemoteAgentOptions {
  /** The local name of the remote agent (its sub-agent runs, the inspector, errors). */
  name: string;
  /**
   * The remote agent's base URL: its card is read from `<url>/.well-known/agent-card.json`
   * (a URL ending in `.json` is the card's own).
   */
  url?: string | undefined;
  /** The remote agent's card, instead of `url`. */
  card?: AgentCard | undefined;
  /** What the local agent is told it does (the run's instructions; the remote reads none). */
  description?: string | undefined;
  /** HTTP headers sent with every request (an `Authorization` header, say). */
  headers?: Record<string, string> | undefined;
  /** The `fetch` the client uses. @default globalThis.fetch */
  fetch?: typeof fetch | undefined;
  /**
   * How long to wait before reading a remote task again when a subscription to it ended
   * before it settled (a server that does not stream). @default 1000
   */
  pollMs?: number | undefined;
  /** Most exchanges with the remote task in one call (each question answered is one). @default 10 */
  maxTurns?: number | undefined;
}

const REMOTE_AGENT_OPTION_NAMES = optionNames<RemoteAgentOptions>({
  name: true,
  url: true,
  card: true,
  description: true,
  headers: true,
  fetch: true,
  pollMs: true,
  maxTurns: true,
});

const isHeaders = (v: unknown): boolean =>
  v !== null &&
  typeof v === 'object' &&
  !Array.isArray(v) &&
  Object.values(v).every((h) => typeof h === 'string');

/** The approval a remote agent's question becomes in the local run. */
const remoteInput = tool({
  name: REMOTE_INPUT_TOOL,
  description: 'The remote agent asks for input: approve to let it go on, reject to refuse',
  parameters: z.object({
    question: z.string(),
    approvals: z.array(z.unknown()),
    taskId: z.string(),
    questionId: z.string(),
    usage: z.unknown(),
  }),
  needsApproval: true,
  execute: () => ({ decision: 'approve' }),
});

/**
 * A remote A2A agent as a local `Agent`, used like any sub-agent (`remote.asTool({...})`, or a
 * handoff). Its run is a local sub-agent run (journaled, inspected, its usage rolled up from
 * what the remote task reports) whose model steps are exchanges with one remote task: the
 * first sends the input, and a remote `input-required` becomes a call of `remote_input` that
 * needs approval, so the local run pauses at its top (`awaitingApproval`) until someone
 * approves or rejects it; the next step sends the decision to the remote task. After a crash,
 * a step started again finds the task it had sent and follows it instead of sending again.
 * A remote task that fails, is cancelled or rejected gives a `RemoteAgentError`.
 * @throws TypeError for an unknown option, neither or both of `url` and `card`, a bad value.
 * @example
 * const billing = remoteAgent({ name: 'billing', url: 'http://127.0.0.1:4000' });
 * const triage = new Agent({ name: 'triage', model, tools: [billing.asTool({
 *   name: 'billing', description: 'Pays bills' })] });
 */
export function remoteAgent(options: RemoteAgentOptions): Agent {
  new OptionChecker('remoteAgent()', options ?? null, REMOTE_AGENT_OPTION_NAMES)
    .nonEmptyString('name', true)
    .check('url', 'an http(s) URL', (v) => typeof v === 'string' && /^https?:\/\/./.test(v))
    .check('card', 'an agent card object', (v) => v !== null && typeof v === 'object')
    .string('description')
    .check('headers', 'an object of string values', isHeaders)
    .function('fetch')
    .positiveInteger('pollMs')
    .positiveInteger('maxTurns');
  if ((options.url === undefined) === (options.card === undefined)) {
    throw new TypeError('remoteAgent(): give exactly one of `url` and `card`');
  }
  return new Agent({
    name: options.name,
    instructions: options.description ?? `The remote agent ${options.name}`,
    model: new A2AModel(options),
    tools: [remoteInput],
    maxTurns: options.maxTurns ?? 10,
  });
}
