import type { KvBackend } from './backends/kv-backend.js';
import * as keys from '../session-keys.js';

/** The owner part of a totals key (`t!a`, `t!u:<encoded>`) as a userId; anonymous: undefined. */
function ownerOf(totalsKey: string, prefix: string): { userId: string | undefined } {
  const part = totalsKey.slice(prefix.length);
  return { userId: part === 'a' ? undefined : decodeURIComponent(part.slice('u:'.length)) };
}

/**
 * Every owner with sessions in the store (the anonymous bucket first, then named users in key
 * order), from the per-owner totals keys and the owner markers of agentstate 0.1. Keys only:
 * what an operator's listing across users walks, one owner's partition at a time.
 */
export async function storeOwners(backend: KvBackend): Promise<{ userId: string | undefined }[]> {
  const seen = new Map<string, { userId: string | undefined }>();
  for (const marker of ['t!', 'o!']) {
    for await (const key of backend.keys(keys.prefixRange(marker))) {
      const owner = ownerOf(key, marker);
      seen.set(owner.userId === undefined ? '' : `u:${owner.userId}`, owner);
    }
  }
  return [...seen.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, o]) => o);
}
