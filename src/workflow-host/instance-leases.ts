import type { Clock } from '../core/clock.js';
import type { SessionKey, SessionStore } from '../persistence/session-store.js';
import type { SessionLease } from '../persistence/session-leases.js';
import { hasLeases } from '../persistence/store-supports.js';
import { LeaseLostError } from '../errors/session-errors.js';
import type { WorkflowInstance } from './workflow-instance.js';

/**
 * One process drives an instance at a time: the instance's lease (on a store that keeps
 * leases), taken before it is restored, renewed while it lives here and given up when it
 * leaves memory. Every save carries it, so a process whose lease was taken over writes nothing
 * (`LeaseLostError`). A store without leases (one process) needs none.
 */
export class InstanceLeases {
  /**
   * Releases under way, by instance: an acquire waits for them, else this owner could renew the
   * lease being given up (same token) just before the release ends it.
   */
  private readonly releasing = new Map<string, Promise<unknown>>();

  constructor(
    private readonly store: SessionStore,
    private readonly clock: Clock,
    private readonly owner: string,
    private readonly ttlMs: number,
  ) {}

  /** The lease for this process: `undefined` without leases, `null` while another holds it. */
  async acquire(key: SessionKey): Promise<SessionLease | undefined | null> {
    if (!hasLeases(this.store)) return undefined;
    await this.releasing.get(leaseKey(key));
    return (await this.store.acquireLease(key, this.owner, this.ttlMs)) ?? null;
  }

  /**
   * Gives the lease up; resolves whether a command may wait in the inbox (`queued`), `undefined`
   * when the store cannot tell (then the inbox is read).
   */
  async release(lease: SessionLease | undefined): Promise<{ queued: boolean } | undefined> {
    if (!lease || !hasLeases(this.store)) return { queued: false };
    const k = leaseKey(lease);
    const releasing = this.store.releaseLease(lease).catch(() => undefined);
    this.releasing.set(k, releasing);
    try {
      return (await releasing) ?? undefined;
    } finally {
      if (this.releasing.get(k) === releasing) this.releasing.delete(k);
    }
  }

  /**
   * While the instance lives here: every `everyMs` (by the clock) renews its lease (a lost one
   * drops the instance) and runs `tick` (reading the inbox).
   */
  keepAlive(instance: WorkflowInstance, everyMs: number, tick: () => Promise<void>): void {
    const every = Math.max(1, Math.min(everyMs, Math.floor(this.ttlMs / 3)));
    const loop = async (): Promise<void> => {
      while (!instance.stopped) {
        try {
          await this.clock.sleepUntil(this.clock.now() + every, instance.stopping.signal);
        } catch {
          return; // it left memory
        }
        if (instance.lease && hasLeases(this.store)) {
          const renewed = await this.store
            .renewLease(instance.lease, this.ttlMs)
            .catch(() => undefined);
          if (!renewed) {
            instance.drop(new LeaseLostError(instance.key.sessionId, this.owner));
            return;
          }
          instance.lease = renewed;
        }
        await tick().catch((error: unknown) => instance.drop(error));
      }
    };
    void loop();
  }
}

function leaseKey(key: { sessionId: string; userId?: string | undefined }): string {
  return JSON.stringify([key.userId ?? null, key.sessionId]);
}
