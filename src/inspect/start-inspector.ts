import { historyPage } from './history-page.js';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { SessionKey } from '../persistence/session-store.js';
import { inspectorAccess } from './inspector-access.js';
import { INSPECTOR_ACTIONS } from './inspector-actions.js';
import { InspectorAgents } from './inspector-agents.js';
import {
  checkInspectorOptions,
  type InspectorHandle,
  type InspectorOptions,
} from './inspector-options.js';
import { runDetail, sessionDetail } from './inspector-reads.js';
import { listQuery, workflowListQuery } from './list-query.js';
import { InspectorWorkflows } from './inspector-workflows.js';
import { WORKFLOW_ACTIONS } from './workflow-actions.js';
import { listWorkflows, sessionLink, workflowDetail } from './workflow-reads.js';
import { InspectorDatasets } from './eval-datasets.js';
import { evalDetail, listEvals } from './eval-reads.js';
import { listSessions } from './session-listing.js';
import { userMemory } from './user-memory.js';
import { userSchedules } from './schedule-listing.js';
import { SCHEDULE_ACTIONS } from './schedule-actions.js';
import { hasMemory, hasSchedules } from '../persistence/store-supports.js';
import { runPart } from './run-parts.js';
import { forkOrigin } from './time-travel.js';
import {
  HttpError,
  INSPECTOR_MAX_BODY_BYTES,
  readJsonBody,
  sendError,
  sendJson,
  sendText,
} from './http-io.js';
import { LiveFeed } from './live-feed.js';
import { dropUnreadBody } from '../http/node-request-body.js';
import { checkIdLength } from '../core/id-limit.js';
import { machineCharts } from './machine-charts.js';
import { PAGE_SCRIPT } from '../../generated/inspector-page-script.js';
import { PAGE_STYLE } from './page/page-style.js';
import { THEME_STYLE } from './page/page-theme.js';
import { LIST_STYLE } from './page/list-style.js';
import { TRACE_STYLE } from './page/trace-style.js';
import { pageHtml } from './page/page-html.js';

/**
 * Starts the local inspector: an HTTP server (127.0.0.1 by default) serving one
 * self-contained page (no CDN, nothing from the internet) and the JSON it reads: sessions,
 * runs with their step timeline, the machines' state charts, a live stream of runs in flight
 * (Server-Sent Events from the runtime's inspection hook), and actions (approve, reject,
 * resume, cancel, fork, export a replay). Every request needs the per-start token: the
 * handle's `url` carries it once, and the page trades it for an HttpOnly, SameSite=Strict
 * cookie; a script sends it in the `x-agentstate-token` header. Approve, Reject and Resume
 * continue a run with the agent that runs it (`agents` for an app with several);
 * `recordOnly` records decisions instead. Cancel stops the run wherever it is (a running one
 * too: in this process, or another on PostgreSQL), audited with `operator` as `by`. With a store
 * that keeps schedules it lists the user's schedules with their last tick's run, and pauses and
 * resumes them (audited `via: 'page'`). Run it in the process that holds the store (one
 * process holds a LevelDB folder).
 * @throws TypeError for bad options, and for a `host` beyond loopback without `authorize`.
 * @example
 * const inspector = await startInspector({ runtime: agent.runtimeFor(store), userId: 'alice' });
 * console.log(`inspector at ${inspector.url}`);
 */
export async function startInspector(options: InspectorOptions): Promise<InspectorHandle> {
  checkInspectorOptions(options);
  const { runtime } = options;
  const host = options.host ?? '127.0.0.1';
  const token = options.token ?? randomBytes(24).toString('base64url');
  const redact = options.redact ?? ((text: string) => text);
  const agents = new InspectorAgents(runtime, options.agents, options.recordOnly === true);
  const live = new LiveFeed(agents.liveRuntimes(), redact);
  const workflows = new InspectorWorkflows(options.workflows);
  const datasets = new InspectorDatasets(options.datasets);
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const access = inspectorAccess({ token, host, port, authorize: options.authorize });

  /** The user a request asks for: its `?user=`, or the inspector's own user. */
  const userOf = (url: URL): string | undefined => {
    const asked = url.searchParams.get('user');
    const user = asked === null || asked === '' ? options.userId : asked;
    if (user !== undefined) checkIdLength('userId', user);
    if (user !== options.userId && !options.allUsers) {
      throw new HttpError(403, 'FORBIDDEN_USER', 'This inspector serves one user only');
    }
    return user;
  };

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', origin);
    if (await access.admit(req, res, url)) return;
    const parts = url.pathname.split('/').filter(Boolean).map(decodeSegment);
    // every id in a path (a session, a run) has the one id length limit
    for (const part of parts) checkIdLength('id', part);
    const send = (body: unknown) => sendJson(res, 200, JSON.parse(redact(JSON.stringify(body))));
    if (req.method === 'POST') {
      const [api, kind, id, action, extra] = parts;
      const asked = api === 'api' && id !== undefined && action !== undefined && !extra;
      // Rows of a session's run appended to one of the app's datasets.
      const toDataset = asked && kind === 'sessions' && action === 'dataset';
      const sessionAct = asked && kind === 'sessions' ? own(INSPECTOR_ACTIONS, action) : undefined;
      const workflowAct = asked && kind === 'workflows' ? own(WORKFLOW_ACTIONS, action) : undefined;
      const scheduleAct = asked && kind === 'schedules' ? own(SCHEDULE_ACTIONS, action) : undefined;
      if (!id || (!sessionAct && !workflowAct && !scheduleAct && !toDataset)) {
        throw new HttpError(404, 'NOT_FOUND', `No action at ${url.pathname}`);
      }
      const body = await readJsonBody(req, options.maxBodyBytes ?? INSPECTOR_MAX_BODY_BYTES);
      if (workflowAct) {
        send(await workflowAct({ runtime, workflows }, { id, userId: userOf(url) }, body));
        return;
      }
      const { operator = 'inspector' } = options;
      const by = typeof operator === 'string' ? operator : operator(req);
      if (scheduleAct) {
        send(await scheduleAct(runtime, { id, userId: userOf(url) }, body, by));
        return;
      }
      const key: SessionKey = { sessionId: id, userId: userOf(url) };
      if (toDataset) {
        send(await datasets.add(agents, key, body));
        return;
      }
      // A decision on a workflow's agent goes through its host, as from the workflow's view.
      const link =
        action === 'approve' || action === 'reject' ? await sessionLink(runtime, key) : undefined;
      if (link) {
        const decide = WORKFLOW_ACTIONS[action as 'approve' | 'reject']!;
        send(await decide({ runtime, workflows }, { id: link.id, userId: key.userId }, body));
        return;
      }
      send(await sessionAct!(agents, key, body, by));
      return;
    }
    if (req.method !== 'GET') throw new HttpError(405, 'METHOD_NOT_ALLOWED', 'GET or POST only');
    const path = url.pathname;
    if (path === '/') {
      return sendText(res, 'text/html', pageHtml(), {
        'content-security-policy':
          "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
      });
    }
    if (path === '/app.js') return sendText(res, 'text/javascript', PAGE_SCRIPT);
    if (path === '/app.css') {
      return sendText(res, 'text/css', PAGE_STYLE + THEME_STYLE + LIST_STYLE + TRACE_STYLE);
    }
    if (parts[0] !== 'api') throw new HttpError(404, 'NOT_FOUND', `Nothing at ${path}`);
    const [, what, sessionId, runs, runId, extra, ...more] = parts;
    if (what === 'info' && !sessionId) {
      return send({
        userId: options.userId ?? null,
        allUsers: options.allUsers === true,
        recordOnly: agents.recordOnly,
        agents: agents.names(),
        workflows: workflows.names(),
        memory: hasMemory(runtime.store),
        schedules: hasSchedules(runtime.store),
        datasets: datasets.enabled,
      });
    }
    if (what === 'machines' && !sessionId) return send(machineCharts());
    if (what === 'memory' && !sessionId)
      return send(await userMemory(runtime, userOf(url), url.searchParams));
    if (what === 'schedules' && !sessionId)
      return send(await userSchedules(runtime, userOf(url), url.searchParams));
    if (what === 'datasets' && !sessionId) return send(await datasets.list());
    if (what === 'evals' && !runs) {
      const user = userOf(url);
      return send(
        sessionId ? await evalDetail(runtime, sessionId, user) : await listEvals(runtime, user),
      );
    }
    if (what === 'live' && !sessionId) {
      const user = userOf(url);
      live.add(res, user, url.searchParams.get('session') ?? undefined);
      return;
    }
    if (what === 'workflows') {
      const user = userOf(url);
      if (!sessionId)
        return send(await listWorkflows(runtime, user, workflowListQuery(url.searchParams)));
      if (runs === undefined)
        return send(await workflowDetail(runtime, workflows, sessionId, user));
      throw new HttpError(404, 'NOT_FOUND', `Nothing at ${path}`);
    }
    if (what !== 'sessions') throw new HttpError(404, 'NOT_FOUND', `Nothing at ${path}`);
    const user = userOf(url);
    if (!sessionId) return send(await listSessions(runtime, user, listQuery(url.searchParams)));
    const key: SessionKey = { sessionId, userId: user };
    if (runs === undefined) {
      const link = await sessionLink(runtime, key);
      return send({ ...(await sessionDetail(runtime, key)), ...(link ? { workflow: link } : {}) });
    }
    if (runs === 'origin' && !runId) return send({ origin: await forkOrigin(runtime, key) });
    if (runs === 'history' && !runId)
      return send(await historyPage(runtime, key, url.searchParams));
    if (runs === 'runs' && runId && !extra) return send(await runDetail(runtime, key, runId));
    if (runs === 'runs' && runId && extra) {
      return send(await runPart(runtime, agents, key, runId, [extra, ...more]));
    }
    throw new HttpError(404, 'NOT_FOUND', `Nothing at ${path}`);
  };

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    dropUnreadBody(req, res);
    route(req, res).catch((error: unknown) => sendError(res, error));
  });

  return {
    url: `${origin}/?token=${encodeURIComponent(token)}`,
    host,
    port,
    token,
    close: async () => {
      live.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The action of `actions` named `name` (its own, never one of `Object`'s: `constructor`). */
function own<T>(actions: Record<string, T>, name: string): T | undefined {
  return Object.hasOwn(actions, name) ? actions[name] : undefined;
}

/** A path segment, percent-decoded; a malformed escape (`%E0%A4%A`, `%ZZ`) is a 400. */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new HttpError(400, 'BAD_REQUEST', 'The path has a malformed percent-escape');
  }
}
