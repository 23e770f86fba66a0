import type { SessionKey, SessionStore } from '../persistence/session-store.js';
import type { Logger } from '../telemetry/logger.js';
import type { TelemetryOptions } from '../telemetry/telemetry-options.js';
import type { AgentOptions } from '../definition/agent-options.js';
import type { Clock } from '../core/clock.js';
import type { PermissionPolicy } from '../core/permission-policy.js';
import type { Durability } from '../core/durability-policy.js';
import type { LeaseSettings } from '../runs/run-lease.js';
import type { BindingSource } from '../definition/agent-binding.js';

export interface SessionRuntimeOptions extends Pick<
  AgentOptions<unknown>,
  'inspect' | 'cachedSessions' | 'liveSessions' | 'maxRecoveries'
> {
  store: SessionStore;
  /** The agent whose runs this runtime executes (an `Agent` or an `AgentSession`). */
  agent: BindingSource;
  /** @default the agent's clock, else the system clock */
  clock?: Clock | undefined;
  /**
   * Serve only this (user, session): every other key behaves as not found (an `AgentSession`'s
   * runtime). Omitted: any key, each a partition of its own.
   */
  scope?: SessionKey | undefined;
  /**
   * Session leases (when the store keeps them); `false` takes none.
   * @default the agent's `lease` option
   */
  lease?: LeaseSettings | false | undefined;
  /**
   * Keys of the sessions whose run is executing, shared by the runtimes that run one store in
   * this process (an Agent's and its AgentSessions'), so each refuses a second live run.
   * @default a set of this runtime's own
   */
  liveRuns?: Set<string> | undefined;
  /** A permission policy for every tool call, composed with the agents' (strictest wins). */
  permissions?: PermissionPolicy | undefined;
  /** @default the agent's `logger` (else `AGENTSTATE_LOG`, read here, once) */
  logger?: Logger | undefined;
  /** @default the agent's `telemetry` */
  telemetry?: TelemetryOptions | false | undefined;
  /**
   * When the changes of this runtime's runs are saved (see `AgentOptions.durability`); a
   * call's own `durability` wins over it.
   * @default the agent's `durability`, else 'step'
   */
  durability?: Durability | undefined;
}
