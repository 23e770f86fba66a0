import type { SessionKey, SessionStore } from '../persistence/session-store.js';
import { supportsCapability } from '../persistence/store-supports.js';

/**
 * Whether the process that runs a session's run is alive, as far as this process can tell:
 * `live` (it runs here, or another owner's lease is live), `gone` (its lease expired or was
 * given up, or the store's leases live in this process and none covers the session: an
 * earlier process, which held the store, left it) or `unknown` (the store keeps no leases).
 */
export type RunOwner = 'live' | 'gone' | 'unknown';

/** The owner of the session's run, from this process's own runs and the store's lease. */
export async function runOwner(
  store: SessionStore,
  key: SessionKey,
  runsHere: boolean,
): Promise<RunOwner> {
  if (runsHere) return 'live';
  if (!supportsCapability(store, 'leaseReads')) return 'unknown';
  const lease = await store.leaseOf(key);
  if (lease) return lease.released || lease.expired ? 'gone' : 'live';
  return store.leasesInProcess === true ? 'gone' : 'unknown';
}
