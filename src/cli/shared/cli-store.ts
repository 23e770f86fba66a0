import { existsSync } from 'node:fs';
import { StoreLockedError } from '../../errors/session-errors.js';
import type { Model } from '../../models/model.js';
import { holdsLevelDatabase } from '../../persistence/kv/backends/level-backend.js';
import { LevelSessionStore } from '../../persistence/kv/level-session-store.js';
import type { SessionKey, SessionStore } from '../../persistence/session-store.js';
import { hasNamedOwners } from '../../persistence/kv/owner-totals.js';
import { Agent } from '../../agent/agent.js';
import type { SessionAction } from '../../actions/session-action.js';
import { SessionRuntime } from '../../sessions/session-runtime.js';
import { CliFailure, EXIT } from './cli-errors.js';
import type { CliIo } from './cli-io.js';

/** The command line's model: it runs no model, so a step that needs one says what to do. */
const noModel: Model = {
  name: 'agentstate-cli',
  generate() {
    return Promise.reject(
      new CliFailure('the command line runs no model: use `agentstate resume --agent <module>`'),
    );
  },
  // eslint-disable-next-line require-yield
  async *stream() {
    throw new CliFailure(
      'the command line runs no model: use `agentstate resume --agent <module>`',
    );
  },
};

/**
 * The command line's own runtime: it runs no model and no tool. An action that would (a
 * resume, an approval that goes on at once) is refused before anything is read, instead of
 * running the run without the app's tools (a `TypeError`); cancelling (which stops steps) is
 * allowed.
 */
class CliRuntime extends SessionRuntime {
  override execute<R>(target: string | SessionKey, action: SessionAction<R>): Promise<R> {
    if (action.runs === true && action.name !== 'cancelRun') {
      // A TypeError: what is missing is the app's agent (exit 2; a 400 in the inspector).
      return Promise.reject(
        new TypeError(
          `${action.name} runs the app's tools and model: use \`agentstate resume --agent <module>\` (or \`inspect --agent\`)`,
        ),
      );
    }
    return super.execute(target, action);
  }
}

/** The command line's runtime on `store`: it runs no model and no tool (see `CliRuntime`). */
export function cliRuntime(store: SessionStore): SessionRuntime {
  return new CliRuntime({ store, agent: new Agent({ name: 'agentstate-cli', model: noModel }) });
}

/** The folder is held by a running app (LevelDB allows one process per folder). */
export class StoreHeldFailure extends CliFailure {
  constructor(readonly db: string) {
    super(
      `the folder ${db} is held by a running app [STORE_LOCKED]: stop the app, or use the app's inspector`,
    );
  }
}

/** The store folder opened for one command, with a runtime that runs no model and no tool. */
export interface CliStore {
  store: LevelSessionStore;
  /** A runtime for actions that run nothing (fork, delete, decisions, cancel, reads). */
  runtime: SessionRuntime;
  /** The key of `sessionId` in the partition the command was given (`--user`). */
  key(sessionId: string): SessionKey;
  close(): Promise<void>;
}

/**
 * Opens the LevelDB folder `db`. A missing folder, or one holding no database (an empty
 * folder, `~/Documents`), is not found (exit 3) and gets no files: every command works on
 * sessions an app stored, so none creates a store (but `eval run`, which keeps its eval runs
 * there: `create`). A folder a running app holds is one line saying to stop the app or use its
 * inspector.
 */
export async function openCliStore(
  db: string,
  userId: string | undefined,
  how: {
    /** Make the folder when it is missing (`eval run`, which stores its own runs). */
    create?: boolean;
  } = {},
): Promise<CliStore> {
  if (!existsSync(db) && how.create !== true) {
    throw new CliFailure(
      `no agentstate folder at ${db} (give --db <folder> or set AGENTSTATE_DIR)`,
      EXIT.notFound,
    );
  }
  if (existsSync(db) && !holdsLevelDatabase(db)) {
    throw new CliFailure(
      `${db} is not an agentstate folder: it holds no LevelDB database (give --db <folder> or set AGENTSTATE_DIR)`,
      EXIT.notFound,
    );
  }
  let store: LevelSessionStore;
  try {
    store = await LevelSessionStore.open({ path: db });
  } catch (error) {
    if (error instanceof StoreLockedError) throw new StoreHeldFailure(db);
    throw error;
  }
  return {
    store,
    runtime: cliRuntime(store),
    key: (sessionId) => ({ sessionId, userId }),
    close: () => store.close(),
  };
}

/**
 * Says on stderr that a command without `--user` reached the anonymous bucket, when the
 * folder also holds sessions of named users (which it cannot see).
 */
export async function notePartition(cli: CliStore, userId: string | undefined, io: CliIo) {
  if (userId !== undefined) return;
  if (await hasNamedOwners(cli.store.backend)) {
    io.err(
      'note: no --user given: this is the anonymous bucket; the folder also holds sessions of named users (--user U, or --all-users to list them all)\n',
    );
  }
}
