import { Agent } from '../agent/agent.js';
import type { SessionStore } from '../persistence/session-store.js';
import { OptionChecker, optionNames } from '../validation/option-checks.js';

/** Options of `createChatHandler`. */
export interface ChatHandlerOptions {
  /** The agent that answers; its runs, approvals and cancels go through its public calls. */
  agent: Agent<unknown>;
  /**
   * Who sends the request, from the app's own auth (a cookie, a bearer token): the session
   * partition. `undefined` or `''` is a 401. Never read from the body. Required: a handler
   * without one refuses to start.
   */
  userId: (request: Request) => string | undefined | Promise<string | undefined>;
  /** The path the routes sit under, e.g. `/api`. @default '' */
  basePath?: string | undefined;
  /** @default the agent's store, else the default one */
  store?: SessionStore | undefined;
  /**
   * The largest request body, in bytes: a longer one is a 413 `BODY_TOO_LARGE`, refused on its
   * `Content-Length` or cancelled as it passes the limit (never read whole).
   * @default 1048576 (1 MB)
   */
  maxBodyBytes?: number | undefined;
  /**
   * Origins besides the request's own whose pages may call the routes (`https://app.example`):
   * a request with another `Origin` header is a 403 `FORBIDDEN_ORIGIN` before anything runs.
   * @default none: same origin only
   */
  allowedOrigins?: readonly string[] | undefined;
}

const NAMES = optionNames<ChatHandlerOptions>({
  agent: true,
  userId: true,
  basePath: true,
  store: true,
  maxBodyBytes: true,
  allowedOrigins: true,
});

/**
 * Checks `createChatHandler`'s options: a `TypeError` naming the option for a missing agent or
 * `userId` resolver (the handler does not start without one), or a `basePath` that does not
 * start with `/` or ends with one, a `maxBodyBytes` that is not a positive integer, an
 * `allowedOrigins` entry that is not an origin.
 */
export function checkChatHandlerOptions(options: ChatHandlerOptions): void {
  new OptionChecker('createChatHandler()', options, NAMES)
    .check('agent', 'an Agent', (v) => v instanceof Agent, true)
    .function('userId', true)
    .check(
      'basePath',
      "a path starting with '/' and not ending with one",
      (v) => typeof v === 'string' && (v === '' || (v.startsWith('/') && !v.endsWith('/'))),
    )
    .implements('store', 'a SessionStore', ['load', 'readHistory'])
    .positiveInteger('maxBodyBytes')
    .check(
      'allowedOrigins',
      "an array of origins such as 'https://app.example' (scheme, host and port only)",
      (v) => Array.isArray(v) && v.every(isOrigin),
    );
}

/** Whether a string is an origin as browsers send it (`https://app.example:8443`). */
export function isOrigin(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    return new URL(value).origin === value;
  } catch {
    return false;
  }
}
