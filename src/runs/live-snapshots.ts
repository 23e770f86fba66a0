import type { Actor, SnapshotFrom } from 'xstate';
import type { RunMachine } from '../machines/run-machine.js';
import type { SessionMachine } from '../machines/session-machine.js';

/** A live session actor: the session machine running in this process. */
export type SessionActor = Actor<SessionMachine>;
/** A snapshot of a live session actor. */
export type SessionSnapshot = SnapshotFrom<SessionMachine>;
/** A snapshot of a live run actor (the session's run or a sub-agent's). */
export type RunSnapshot = SnapshotFrom<RunMachine>;
