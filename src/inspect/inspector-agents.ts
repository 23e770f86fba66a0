import type { SessionKey } from '../persistence/session-store.js';
import { Agent } from '../agent/agent.js';
import type { SessionRuntime } from '../sessions/session-runtime.js';
import { HttpError } from './http-io.js';

/**
 * Who continues a session's run from the inspector (an approval, a resume): the agent that
 * runs it. With an `agents` map, the one named by the stored run (an app with several
 * top-level agents); without one, the runtime's own agent (the runtime refuses a run another
 * agent runs with `WrongAgentError`). `recordOnly`: no agent at all, decisions are recorded.
 */
export class InspectorAgents {
  constructor(
    /** The runtime every read and every action that runs nothing goes through. */
    readonly runtime: SessionRuntime,
    private readonly agents: Readonly<Record<string, Agent<unknown>>> | undefined,
    /** No agent of the app here: approvals are recorded, the app's resume runs them. */
    readonly recordOnly: boolean,
  ) {}

  /** The names of the agents this inspector runs sessions with (none when record-only). */
  names(): string[] {
    if (this.recordOnly) return [];
    return this.agents ? Object.keys(this.agents) : [this.runtime.agentName];
  }

  /**
   * The runtime that continues `key`'s run: the agent of the map the stored run names (409
   * `WRONG_AGENT` for one the inspector does not serve), else the inspector's runtime.
   */
  async runtimeFor(key: SessionKey): Promise<SessionRuntime> {
    const { agents, runtime } = this;
    if (!agents) return runtime;
    const runAgent = (await runtime.getSession(key)).run?.context.agentName;
    // No run: the runtime's action says there is nothing to continue.
    if (runAgent === undefined) return runtime;
    const agent = Object.hasOwn(agents, runAgent) ? agents[runAgent] : undefined;
    if (!agent) {
      throw new HttpError(
        409,
        'WRONG_AGENT',
        `Session "${key.sessionId}"'s run is run by agent "${runAgent}", which this inspector does not serve (it serves ${this.names()
          .map((n) => `"${n}"`)
          .join(', ')})`,
      );
    }
    return agent.runtimeFor(runtime.store);
  }

  /**
   * The agent whose definition rows of `key`'s run are built with (eval datasets): the one that
   * runs it, as {@link runtimeFor} finds it. A record-only inspector has none (400 `NO_AGENT`).
   */
  async agentFor(key: SessionKey): Promise<Agent<unknown>> {
    if (this.recordOnly) {
      throw new HttpError(
        400,
        'NO_AGENT',
        "This inspector runs no agent of the app: rows are built with the app's agent (start the inspector in the app, or `agentstate inspect --agent <module>`)",
      );
    }
    const runtime = await this.runtimeFor(key);
    const agent = runtime.agentSource;
    if (!(agent instanceof Agent)) {
      throw new HttpError(400, 'NO_AGENT', "This inspector's runtime runs no Agent of the app");
    }
    return agent;
  }

  /** The agents of the `agents` map (none without one): where tool definitions are read. */
  defined(): Agent<unknown>[] {
    return Object.values(this.agents ?? {});
  }

  /** Every runtime whose runs the live feed follows (each agent's on the store, and the own). */
  liveRuntimes(): SessionRuntime[] {
    const all = new Set([this.runtime]);
    for (const agent of Object.values(this.agents ?? {})) {
      all.add(agent.runtimeFor(this.runtime.store));
    }
    return [...all];
  }
}
