import { Agent } from '../agent/agent.js';
import type { IncomingMessage } from 'node:http';
import { SessionRuntime } from '../sessions/session-runtime.js';
import { LOOPBACK } from './inspector-access.js';
import { OptionChecker, optionNames } from '../validation/option-checks.js';
import { isInspectedWorkflows, type InspectedWorkflows } from './inspector-workflows.js';

/** Options of `startInspector`. */
export interface InspectorOptions {
  /**
   * The runtime whose sessions the inspector shows and acts on (for an agent:
   * `agent.runtimeFor(store)`, the one its runs use, so their steps stream live). Every read
   * and action goes through it: the user partition holds.
   */
  runtime: SessionRuntime;
  /**
   * The app's top-level agents by name, for an app with more than one: Approve, Reject and
   * Resume continue a session's run with the agent that runs it (`agent.runtimeFor` on the
   * runtime's store); a run of an agent not in the map is refused (409 `WRONG_AGENT`). Each
   * key must be its agent's name. Omitted: the runtime's own agent continues runs, and a run
   * of another agent is refused (`WrongAgentError`, 409).
   */
  agents?: Readonly<Record<string, Agent<unknown>>> | undefined;
  /**
   * No agent of the app in this process (the command line's `inspect` without `--agent`):
   * Approve and Reject record the decision in the session (the run stays awaiting approval,
   * marked held, as `agentstate approve` does) and the run continues when the app resumes it;
   * Resume is refused (400 `NO_AGENT`) and the page hides it. Not with `agents`.
   * @default false
   */
  recordOnly?: boolean | undefined;
  /**
   * The app's workflow hosts (`workflows(machine, options)`) on the runtime's store: the page
   * lists their instances beside the sessions, draws each one's chart from its machine with the
   * path it took, and approves or rejects a call its nested agent waits for through the host.
   * An instance of a workflow not listed here is shown without its chart, and not acted on.
   * Each host's name once.
   */
  workflows?: readonly InspectedWorkflows[] | undefined;
  /**
   * Where the app's eval datasets live (JSONL files, `<name>.jsonl`): a session's page gets
   * "Add to dataset", appending rows built from its run (`rowsFromRun`: the whole run, or each
   * model step) to the dataset named, created when missing. The rows are built with the agent
   * that runs the session (as Resume finds it); a record-only inspector has none and refuses.
   * Without it the page only shows the eval runs the store holds.
   */
  datasets?: { dir: string } | undefined;
  /** @default 0 (a free port; read it from the handle's `url`) */
  port?: number | undefined;
  /**
   * The interface to listen on. Anything but a loopback address (`127.0.0.1`, `localhost`,
   * `::1`) serves the network and is refused at start unless `authorize` is given.
   * @default '127.0.0.1'
   */
  host?: string | undefined;
  /**
   * The app's check of every request (its headers, its socket), before anything else: return
   * `true` to let it on to the token check, `false` for a 403 `NOT_AUTHORIZED`. Required to
   * serve beyond loopback (the inspector cannot know who the network's users are; the Host
   * check of a loopback bind does not apply there).
   * @example authorize: (req) => req.headers.authorization === `Bearer ${process.env.OPS_KEY}`
   */
  authorize?: ((request: IncomingMessage) => boolean | Promise<boolean>) | undefined;
  /**
   * The user whose sessions the inspector serves (the anonymous bucket when omitted); a
   * request for another user is refused with 403 unless `allUsers` is set.
   */
  userId?: string | undefined;
  /** Serve any user's sessions, one user at a time (`?user=` in the page). @default false */
  allUsers?: boolean | undefined;
  /**
   * The token every request must carry: in the `x-agentstate-token` header, or once in the
   * page's address (`url`), which trades it for an HttpOnly, SameSite=Strict cookie and
   * redirects to the clean address. Never embedded in the page.
   * @default a new random token per start
   */
  token?: string | undefined;
  /**
   * Who acts through the inspector, for the audit log's `by` of a cancel (Cancel run): a name,
   * or the app's reading of each request (its headers, as `authorize` sees them). The command
   * line's `inspect` gives the operator's login name.
   * @default 'inspector'
   */
  operator?: string | ((request: IncomingMessage) => string | undefined) | undefined;
  /**
   * Scrubs the app's secrets from every response and live frame (as the agent's `redact`
   * does from what it stores). @default none (what the store holds was scrubbed on write)
   */
  redact?: ((text: string) => string) | undefined;
  /**
   * The largest body an action takes, in bytes: a longer one is a 413 `BODY_TOO_LARGE`,
   * refused on its `Content-Length` or as it passes the limit (never read whole).
   * @default 65536 (64 KB)
   */
  maxBodyBytes?: number | undefined;
}

/** A running inspector. */
export interface InspectorHandle {
  /**
   * The page's address with the token, e.g. `http://127.0.0.1:4321/?token=…`: open it in the
   * browser (it trades the token for a cookie and lands on `http://127.0.0.1:4321/`). Give it
   * to no one else.
   */
  url: string;
  host: string;
  port: number;
  /** The per-start token every request needs (a script sends it in `x-agentstate-token`). */
  token: string;
  /** Stops listening and ends the live streams. */
  close(): Promise<void>;
}

const NAMES = optionNames<InspectorOptions>({
  runtime: true,
  agents: true,
  recordOnly: true,
  workflows: true,
  datasets: true,
  port: true,
  host: true,
  authorize: true,
  userId: true,
  allUsers: true,
  token: true,
  operator: true,
  redact: true,
  maxBodyBytes: true,
});

/** Checks `startInspector(options)`; a mistake is a `TypeError` naming the option. */
export function checkInspectorOptions(options: unknown): void {
  new OptionChecker('startInspector()', options ?? null, NAMES)
    .check('runtime', 'a SessionRuntime', (v) => v instanceof SessionRuntime, true)
    .check(
      'port',
      'an integer from 0 to 65535',
      (v) => Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) <= 65535,
    )
    .nonEmptyString('host')
    .nonEmptyString('userId')
    .check('allUsers', 'a boolean', (v) => typeof v === 'boolean')
    .check(
      'token',
      'a string of at least 16 characters',
      (v) => typeof v === 'string' && v.length >= 16,
    )
    .function('redact')
    .positiveInteger('maxBodyBytes')
    .check(
      'operator',
      'a non-empty string or a function',
      (v) => (typeof v === 'string' && v !== '') || typeof v === 'function',
    )
    .check('recordOnly', 'a boolean', (v) => typeof v === 'boolean')
    .check(
      'agents',
      'an object of Agents, each under its own name',
      (v) =>
        typeof v === 'object' &&
        v !== null &&
        !Array.isArray(v) &&
        Object.keys(v).length > 0 &&
        Object.entries(v).every(([name, agent]) => agent instanceof Agent && agent.name === name),
    )
    .function('authorize')
    .check(
      'datasets',
      'an object { dir } naming a folder',
      (v) =>
        typeof v === 'object' &&
        v !== null &&
        typeof (v as { dir?: unknown }).dir === 'string' &&
        (v as { dir: string }).dir !== '' &&
        Object.keys(v).every((k) => k === 'dir'),
    )
    .check(
      'workflows',
      'an array of workflow hosts (`workflows(machine, options)`), each name once',
      (v) =>
        Array.isArray(v) &&
        v.every(isInspectedWorkflows) &&
        new Set(v.map((h: InspectedWorkflows) => h.name)).size === v.length,
    );
  const given = options as InspectorOptions;
  if (given.recordOnly === true && given.agents !== undefined) {
    throw new TypeError('startInspector(): "recordOnly" and "agents" exclude each other');
  }
  const { host, authorize } = given;
  if (host !== undefined && !LOOPBACK.has(host) && authorize === undefined) {
    throw new TypeError(
      `startInspector(): option "host" is "${host}", not a loopback address: serving the network needs option "authorize" (the app's check of each request)`,
    );
  }
}
