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
}

const NAMES = optionNames<ChatHandlerOptions>({
  agent: true,
  userId: true,
  basePath: true,
  store: true,
});

/**
 * Checks `createChatHandler`'s options: a `TypeError` naming the option for a missing agent or
 * `userId` resolver (the handler does not start without one), or a `basePath` that does not
 * start with `/` or ends with one.
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
    .implements('store', 'a SessionStore', ['load', 'readHistory']);
}
