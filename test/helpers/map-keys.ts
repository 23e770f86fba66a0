import type { SessionKey } from 'agentstate-runtime/store';

/** The keys of the `Map`s a `MapSessionStore` keeps its values in. */

/** A session's key: `undefined` (the anonymous bucket) and `''` are two owners. */
export function sessionMapKey(key: SessionKey): string {
  if (typeof key.sessionId !== 'string' || key.sessionId === '') {
    throw new TypeError('sessionId must be a non-empty string');
  }
  return JSON.stringify([key.userId ?? null, key.sessionId]);
}

/** An owner's key; every session key of the owner starts with `[<owner key>,`. */
export function ownerMapKey(userId: string | undefined): string {
  return JSON.stringify(userId ?? null);
}

/** Whether `sessionKey` (a `sessionMapKey`) is one of `userId`'s sessions. */
export function ownedBy(sessionKey: string, userId: string | undefined): boolean {
  return sessionKey.startsWith(`[${ownerMapKey(userId)},`);
}

/** The session a `sessionMapKey` names. */
export function sessionOfMapKey(sessionKey: string): SessionKey {
  const [userId, sessionId] = JSON.parse(sessionKey) as [string | null, string];
  return { sessionId, userId: userId ?? undefined };
}

/** A deadline index key: deadline order, then owner and session. */
export function deadlineMapKey(key: SessionKey, deadline: number): string {
  return `${String(deadline).padStart(16, '0')} ${sessionMapKey(key)}`;
}

/** Sorts `[key, value]` pairs by key. */
export const byMapKey = <T>([a]: [string, T], [b]: [string, T]): number =>
  a < b ? -1 : a > b ? 1 : 0;
