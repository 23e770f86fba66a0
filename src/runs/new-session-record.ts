import { createActor } from 'xstate';
import { MACHINE_VERSION, sessionMachine } from '../machines/session-machine.js';
import type { SessionMachineContext } from '../machines/session-types.js';
import type { SessionKey, SessionRecord } from '../persistence/session-store.js';
import { emptyTotals } from '../persistence/session-store.js';

/** A fresh session record in `active.idle`, created at `now` (epoch ms). */
export function newSessionRecord(
  key: SessionKey,
  now: number,
  input: Partial<SessionMachineContext> = {},
): Omit<SessionRecord, 'version'> {
  const actor = createActor(sessionMachine(), {
    input: { sessionId: key.sessionId, userId: key.userId, ...input },
  });
  return {
    sessionId: key.sessionId,
    userId: key.userId,
    status: 'active',
    createdAt: now,
    updatedAt: now,
    parentId: input.parentId,
    historyLength: 0,
    usage: input.usage ?? emptyTotals(),
    machineVersion: MACHINE_VERSION,
    snapshot: actor.getPersistedSnapshot(),
  };
}
