import { Agent } from '../agent/agent.js';
import type { SessionStore } from '../persistence/session-store.js';
import { isOrigin } from '../http/chat-handler-options.js';
import { isObject, OptionChecker, optionNames } from '../validation/option-checks.js';

/** A skill the agent card lists (A2A `AgentSkill`); `tags` and `examples` default to none. */
export interface A2ASkill {
  id: string;
  name: string;
  description: string;
  tags?: readonly string[] | undefined;
  examples?: readonly string[] | undefined;
}

/** What the agent card says beyond what the agent's definition gives. */
export interface A2ACardOptions {
  /** The URL clients post JSON-RPC to: where the handler is served, e.g. `https://agents.example/a2a`. */
  url: string;
  /** @default the agent's name */
  name?: string | undefined;
  /** @default a sentence naming the agent */
  description?: string | undefined;
  /** The agent's version as the card shows it. @default the agent's `version`, else '1.0.0' */
  version?: string | undefined;
  /** @default one skill per tool of the agent (its name and description) */
  skills?: readonly A2ASkill[] | undefined;
}

/** Options of `createA2AHandler`. */
export interface A2AHandlerOptions {
  /** The agent that answers; its runs, approvals and cancels go through its public calls. */
  agent: Agent<unknown>;
  /**
   * Who sends the request, from the app's own auth (a bearer token, an API key): the session
   * partition. `undefined` or `''` is a 401. Never read from the body. Required: a handler
   * without one refuses to start.
   */
  userId: (request: Request) => string | undefined | Promise<string | undefined>;
  /** The agent card's fields (`url` required). */
  card: A2ACardOptions;
  /**
   * The path the handler sits under: JSON-RPC is posted to it (`/` when empty), the card is at
   * `<basePath>/.well-known/agent-card.json`. @default ''
   */
  basePath?: string | undefined;
  /** @default the agent's store, else the default one */
  store?: SessionStore | undefined;
  /** The largest request body, in bytes (a longer one is refused unread). @default 1048576 */
  maxBodyBytes?: number | undefined;
  /** Origins besides the request's own whose pages may call the handler. @default none */
  allowedOrigins?: readonly string[] | undefined;
}

const NAMES = optionNames<A2AHandlerOptions>({
  agent: true,
  userId: true,
  card: true,
  basePath: true,
  store: true,
  maxBodyBytes: true,
  allowedOrigins: true,
});

const CARD_NAMES = optionNames<A2ACardOptions>({
  url: true,
  name: true,
  description: true,
  version: true,
  skills: true,
});

/**
 * Checks `createA2AHandler`'s options: a `TypeError` naming the option for a missing agent,
 * `userId` resolver (the handler does not start without one) or card URL, a bad `basePath`,
 * `maxBodyBytes`, `allowedOrigins` entry or skill.
 */
export function checkA2AHandlerOptions(options: A2AHandlerOptions): void {
  const call = 'createA2AHandler()';
  new OptionChecker(call, options, NAMES)
    .check('agent', 'an Agent', (v) => v instanceof Agent, true)
    .function('userId', true)
    .check('card', 'an object with the url clients post to', isObject, true)
    .check(
      'basePath',
      "a path starting with '/' and not ending with one",
      (v) => typeof v === 'string' && (v === '' || (v.startsWith('/') && !v.endsWith('/'))),
    )
    .implements('store', 'a SessionStore', ['load', 'readHistory', 'readRunJournal'])
    .positiveInteger('maxBodyBytes')
    .check(
      'allowedOrigins',
      "an array of origins such as 'https://app.example' (scheme, host and port only)",
      (v) => Array.isArray(v) && v.every(isOrigin),
    );
  new OptionChecker(call, options.card, CARD_NAMES, 'card')
    .check('url', 'an http(s) URL', isHttpUrl, true)
    .nonEmptyString('name')
    .string('description')
    .nonEmptyString('version')
    .check('skills', 'an array of { id, name, description, tags?, examples? }', (v) =>
      Array.isArray(v) ? v.every(isSkill) : false,
    );
}

function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

function isSkill(value: unknown): boolean {
  if (!isObject(value)) return false;
  const strings = (v: unknown) =>
    v === undefined || (Array.isArray(v) && v.every((s) => typeof s === 'string'));
  return (
    typeof value['id'] === 'string' &&
    value['id'] !== '' &&
    typeof value['name'] === 'string' &&
    typeof value['description'] === 'string' &&
    strings(value['tags']) &&
    strings(value['examples'])
  );
}
