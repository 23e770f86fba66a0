import type { ServerResponse } from 'node:http';
import type { InspectionEvent } from 'xstate';
import type { SessionKey } from '../persistence/session-store.js';
import type { SessionRuntime } from '../sessions/session-runtime.js';
import { stateName } from '../runs/session-status.js';
import { HttpError } from './http-io.js';
import { liveEntry } from './live-entry.js';

/** The most live streams one inspector serves at a time. */
export const MAX_LIVE_CLIENTS = 16;

/**
 * The most bytes the server keeps for one live stream that its client does not read (past
 * what the sockets hold): a stream further behind is dropped (the page's EventSource opens it
 * again and the page reloads what it shows).
 */
export const MAX_BUFFERED_BYTES = 256 * 1024;

/**
 * A compact, plain-JSON frame of an inspection event, in `@statelyai/inspect`'s vocabulary
 * (`@xstate.actor`, `@xstate.event`, `@xstate.snapshot`): which actor, which event type, which
 * state. It carries no context and no event payload, so nothing the app keeps secret can reach
 * the page through it.
 */
export interface LiveFrame {
  type: '@xstate.actor' | '@xstate.event' | '@xstate.snapshot';
  sessionId: string;
  /** The XState session id of the actor (`x:3`), its parent's, and its logic's name. */
  actorId: string;
  parentId?: string | undefined;
  src: string;
  /** The run an actor belongs to (run actors and their steps). */
  runId?: string | undefined;
  eventType?: string | undefined;
  /** The actor's state (`modelCall`, `approvals.checking`), for machines. */
  state?: string | undefined;
  status?: string | undefined;
  /** The agent the actor works for, the journal step of a step actor, the frame in words. */
  agent?: string | undefined;
  step?: number | undefined;
  text?: string | undefined;
}

interface Client {
  res: ServerResponse;
  userId: string | undefined;
  sessionId: string | undefined;
}

/**
 * Sends each session's inspection events, as frames, to the pages that watch that user. It
 * serves at most `MAX_LIVE_CLIENTS` streams and keeps at most `MAX_BUFFERED_BYTES` for a
 * stream whose client is behind (once `res.write` returned false, the socket holds the rest
 * until 'drain'), so a client that stops reading costs a bounded amount and is then dropped.
 */
export class LiveFeed {
  private readonly clients = new Set<Client>();
  private readonly off: () => void;

  constructor(
    runtimes: readonly SessionRuntime[],
    private readonly redact: (text: string) => string,
  ) {
    const offs = runtimes.map((runtime) =>
      runtime.on('Inspection', ({ key, event }) => this.publish(key, event)),
    );
    this.off = () => offs.forEach((off) => off());
  }

  /** Starts a Server-Sent Events stream of one user's frames (one session's, if given). */
  add(res: ServerResponse, userId: string | undefined, sessionId: string | undefined): void {
    if (this.clients.size >= MAX_LIVE_CLIENTS) {
      throw new HttpError(503, 'TOO_MANY_STREAMS', `At most ${MAX_LIVE_CLIENTS} live streams`);
    }
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-content-type-options': 'nosniff',
    });
    res.write(': live\n\n');
    const client = { res, userId, sessionId };
    this.clients.add(client);
    res.on('close', () => this.clients.delete(client));
  }

  close(): void {
    this.off();
    for (const client of this.clients) client.res.end();
    this.clients.clear();
  }

  private publish(key: SessionKey, event: InspectionEvent): void {
    if (!this.clients.size || event.type === '@xstate.microstep' || event.type === '@xstate.action')
      return;
    const frame = frameOf(key, event);
    const text = `data: ${this.redact(JSON.stringify(frame))}\n\n`;
    for (const client of this.clients) {
      if (client.userId !== key.userId) continue;
      if (client.sessionId !== undefined && client.sessionId !== key.sessionId) continue;
      send(client.res, text);
    }
  }
}

/** Writes a frame, or drops the stream when its unread bytes would pass the cap. */
function send(res: ServerResponse, text: string): void {
  if (res.writableLength + Buffer.byteLength(text) > MAX_BUFFERED_BYTES) {
    res.destroy();
    return;
  }
  res.write(text);
}

type Snapshot = {
  value?: unknown;
  status?: string;
  context?: { runId?: unknown };
  input?: { runId?: unknown };
  output?: unknown;
  error?: unknown;
};

type Ref = {
  sessionId: string;
  src?: unknown;
  /** The options the actor was created with: a step actor's input (its done snapshot drops it). */
  options?: { input?: unknown };
  _parent?: { sessionId: string; getSnapshot(): Snapshot } | undefined;
  getSnapshot(): Snapshot;
};

/** The output or error a promise actor's resolve or reject event carries (in its `data`). */
function promiseEnd(event: { type: string }): { output?: unknown; error?: unknown } {
  const e = event as { type: string; data?: unknown };
  if (e.type === 'xstate.promise.resolve') return { output: e.data };
  if (e.type === 'xstate.promise.reject') return { error: e.data };
  return {};
}

function frameOf(key: SessionKey, event: InspectionEvent): LiveFrame {
  const ref = event.actorRef as unknown as Ref;
  const snapshot =
    event.type === '@xstate.snapshot' ? (event.snapshot as Snapshot) : ref.getSnapshot();
  const input = (snapshot.input ?? ref.options?.input) as { runId?: unknown } | undefined;
  const runId = snapshot.context?.runId ?? input?.runId;
  const src = typeof ref.src === 'string' ? ref.src : 'session';
  const state =
    snapshot.value !== undefined
      ? stateName(snapshot.value as Parameters<typeof stateName>[0])
      : undefined;
  const entry = liveEntry(event.type, {
    src,
    eventType: event.type === '@xstate.event' ? event.event.type : undefined,
    status: snapshot.status,
    state,
    input,
    ...(event.type === '@xstate.event' ? promiseEnd(event.event) : {}),
    context: snapshot.context,
    parentContext: ref._parent?.getSnapshot().context,
  });
  return {
    type: event.type as LiveFrame['type'],
    sessionId: key.sessionId,
    actorId: ref.sessionId,
    parentId: ref._parent?.sessionId,
    src,
    ...(typeof runId === 'string' ? { runId } : {}),
    ...(event.type === '@xstate.event' ? { eventType: event.event.type } : {}),
    ...(state !== undefined ? { state } : {}),
    ...(snapshot.status ? { status: snapshot.status } : {}),
    ...(entry.agent !== undefined ? { agent: entry.agent } : {}),
    ...(entry.step !== undefined ? { step: entry.step } : {}),
    ...(entry.text !== undefined ? { text: entry.text } : {}),
  };
}
