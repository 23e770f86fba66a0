import type { SessionStore } from '../persistence/session-store.js';
import type { BindingSource } from '../definition/agent-binding.js';
import { SessionRuntime } from '../sessions/session-runtime.js';
import { BusyRuns } from '../sessions/busy-runs.js';

/**
 * An agent's SessionRuntimes, one per store (sharing the store's history cache), and the
 * sessions whose run is executing on each store, which its AgentSessions and actors share, so
 * that no two callers in this process run the same session at once.
 */
export class AgentRuntimes {
  private readonly runtimes = new WeakMap<SessionStore, SessionRuntime>();
  private readonly liveRuns = new WeakMap<SessionStore, Set<string>>();

  constructor(private readonly agent: BindingSource) {}

  /** The SessionRuntime the agent uses for `store`. */
  runtimeFor(store: SessionStore): SessionRuntime {
    let runtime = this.runtimes.get(store);
    if (!runtime) {
      runtime = new SessionRuntime({ store, agent: this.agent, liveRuns: this.liveRunsFor(store) });
      this.runtimes.set(store, runtime);
    }
    return runtime;
  }

  /** The sessions whose run is executing on `store`. */
  liveRunsFor(store: SessionStore): Set<string> {
    let live = this.liveRuns.get(store);
    if (!live) {
      live = new BusyRuns(); // also lets a message sent meanwhile wait for a run or cancel it
      this.liveRuns.set(store, live);
    }
    return live;
  }
}
