import type { ServerResponse } from 'node:http';
import type { InspectionEvent } from 'xstate';
import type { SessionKey } from '../persistence/session-store.js';
import type { SessionRuntime } from '../runtime/session-runtime.js';
import { stateName } from '../runtime/session-status.js';

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
}

interface Client {
  res: ServerResponse;
  userId: string | undefined;
  sessionId: string | undefined;
}

/** Sends each session's inspection events, as frames, to the pages that watch that user. */
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
      client.res.write(text);
    }
  }
}

type Ref = {
  sessionId: string;
  src?: unknown;
  _parent?: { sessionId: string } | undefined;
  getSnapshot(): { value?: unknown; status?: string; context?: { runId?: unknown } };
};

function frameOf(key: SessionKey, event: InspectionEvent): LiveFrame {
  const ref = event.actorRef as unknown as Ref;
  const snapshot =
    event.type === '@xstate.snapshot'
      ? (event.snapshot as ReturnType<Ref['getSnapshot']>)
      : ref.getSnapshot();
  const runId = snapshot.context?.runId;
  return {
    type: event.type as LiveFrame['type'],
    sessionId: key.sessionId,
    actorId: ref.sessionId,
    parentId: ref._parent?.sessionId,
    src: typeof ref.src === 'string' ? ref.src : 'session',
    ...(typeof runId === 'string' ? { runId } : {}),
    ...(event.type === '@xstate.event' ? { eventType: event.event.type } : {}),
    ...(snapshot.value !== undefined
      ? { state: stateName(snapshot.value as Parameters<typeof stateName>[0]) }
      : {}),
    ...(snapshot.status ? { status: snapshot.status } : {}),
  };
}
