import type { Actor, SnapshotFrom } from 'xstate';
import type { runMachine } from '../machines/run-machine.js';
import type { sessionMachine } from '../machines/session-machine.js';

/** A live session actor: the session machine running in this process. */
export type SessionActor = Actor<typeof sessionMachine>;
/** A snapshot of a live session actor. */
export type SessionSnapshot = SnapshotFrom<typeof sessionMachine>;
/** A snapshot of a live run actor (the session's run or a sub-agent's). */
export type RunSnapshot = SnapshotFrom<typeof runMachine>;
