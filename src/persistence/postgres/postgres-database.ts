import { createHash } from 'node:crypto';
import { Socket } from 'node:net';
import pg from 'pg';
import { AgentStateError } from '../../errors/agentstate-error.js';
import { SessionSaveFailedError, StoreUnavailableError } from '../../errors/session-errors.js';
import type { SessionKey, StoreStats } from '../session-store.js';
import { databaseUnreachable } from './database-unreachable.js';
import { migrateSchema, quoteIdent } from './postgres-schema.js';
import { PostgresStatements } from './postgres-statements.js';
import type { PostgresSessionStoreOptions } from './postgres-store-options.js';
import type { ListenConnection } from './notifications/shared-listen.js';

/**
 * The PostgreSQL side of the store: its pool (the caller's or its own), its schema, created and
 * migrated once, and the statements run on it. A database failure is `StoreUnavailableError`
 * (`SessionSaveFailedError` for the save statement); counts what it writes.
 */
export class PostgresDatabase {
  readonly schema: string;
  readonly sql: PostgresStatements;
  /** A table's name qualified with the store's schema (never taken from `search_path`). */
  readonly table = (name: string): string => `${quoteIdent(this.schema)}.${quoteIdent(name)}`;
  /**
   * The NOTIFY channel of one topic of this store's schema (at most 63 bytes, whatever the
   * schema): the decision inbox's without a topic, `saves` for the sessions' saves.
   */
  readonly channel = (topic?: string): string => {
    const id = createHash('sha1').update(this.schema).digest('hex').slice(0, 24);
    return topic === undefined ? `agentstate_${id}` : `agentstate_${id}_${topic}`;
  };
  private readonly pool: pg.Pool;
  private readonly ownsPool: boolean;
  /** Whether a schema without the store gets one (else `StoreNotFoundError`). */
  private readonly create: boolean;
  private migrated: Promise<void> | undefined;
  /**
   * The sockets of the connections the store made (its own pool's, its LISTEN connection's),
   * cut by `cutOff` when a close passes its bound; none is made after that.
   */
  private readonly sockets = new Set<Socket>();
  private cut = false;
  /**
   * Rejects once the store's own pool is ended: a statement that asked it for a connection
   * just before (`pg.Pool.end()` leaves such waiters unanswered) fails instead of hanging.
   */
  private readonly poolEnded: Promise<never>;
  private endPool: (error: Error) => void = () => undefined;
  private readonly openSocket = (): Socket => {
    const socket = new Socket();
    // After its `connect` (which would make a destroyed socket usable again).
    if (this.cut) process.nextTick(() => socket.destroy(new Error('the store was closed')));
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    return socket;
  };
  private batches = 0;
  private bytesWritten = 0;

  constructor(options: PostgresSessionStoreOptions) {
    this.ownsPool = options.pool === undefined;
    this.pool =
      options.pool ??
      new pg.Pool({
        connectionString: options.connectionString,
        max: options.poolSize ?? 10,
        // Its idle connections do not keep the process alive (a script that never closes the
        // store exits once its work is done), as the LISTEN connection does not while unused.
        allowExitOnIdle: true,
        stream: this.openSocket,
      });
    // An idle connection the server ends (a restart, a failover, `pg_terminate_backend`) is an
    // 'error' of the pool, uncaught without a listener: the pool drops it and connects anew.
    // On a caller's pool too, while the store is open (its own listeners hear it as well).
    this.pool.on('error', ignoreIdleError);
    this.poolEnded = new Promise<never>((_resolve, reject) => (this.endPool = reject));
    this.poolEnded.catch(() => undefined); // rejects with no statement waiting too
    this.schema = options.schema ?? 'public';
    this.create = options.create ?? true;
    this.sql = new PostgresStatements(this.table, this.channel('saves'));
  }

  /** Creates or migrates the tables once; a newer schema is `UnsupportedSchemaVersionError`. */
  ready(): Promise<void> {
    this.migrated ??= migrateSchema(this.pool, this.schema, undefined, this.create).catch(
      (error: unknown) => {
        this.migrated = undefined;
        throw error instanceof AgentStateError
          ? error
          : new StoreUnavailableError('create or migrate its schema', error);
      },
    );
    return this.migrated;
  }

  /** Runs one statement; a database failure is `StoreUnavailableError`. */
  async query<R extends pg.QueryResultRow>(
    operation: string,
    key: Partial<SessionKey>,
    text: () => string,
    values: unknown[],
  ): Promise<pg.QueryResult<R>> {
    await this.readyFor(key);
    try {
      return await Promise.race([this.pool.query<R>(text(), values), this.poolEnded]);
    } catch (error) {
      throw new StoreUnavailableError(operation, error, { sessionId: key.sessionId });
    }
  }

  /**
   * Runs `work` on one connection of the pool, released after it. A database failure is
   * `StoreUnavailableError`; an `AgentStateError` of `work` (a refused write) is thrown as is.
   */
  async withClient<T>(operation: string, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    await this.ready();
    let client: pg.PoolClient;
    try {
      client = await Promise.race([this.pool.connect(), this.poolEnded]);
    } catch (error) {
      throw new StoreUnavailableError(operation, error);
    }
    // As in `migrateSchema`: the server ending a checked-out client fails its statement.
    client.on('error', ignoreIdleError);
    let broken: Error | undefined;
    try {
      return await work(client);
    } catch (error) {
      if (error instanceof AgentStateError) throw error;
      // A connection that failed (it may be left inside a transaction) is not given out again.
      broken = error instanceof Error ? error : new Error(String(error));
      throw new StoreUnavailableError(operation, error);
    } finally {
      client.off('error', ignoreIdleError);
      client.release(broken);
    }
  }

  /**
   * Runs `work` in one transaction (`BEGIN` and `begin`'s statements, which take no
   * parameters, in one round trip), committed when it resolves, rolled back when it throws.
   */
  transaction<T>(
    operation: string,
    work: (client: pg.PoolClient) => Promise<T>,
    begin: readonly string[] = [],
  ): Promise<T> {
    return this.withClient(operation, async (client) => {
      await client.query(['BEGIN', ...begin].join('; '));
      try {
        const result = await work(client);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
    });
  }

  /** Runs the one save statement; returns the rows it updated (0 or 1). */
  async write(
    key: SessionKey,
    values: unknown[],
    withTotals: boolean,
    withAudit = false,
    withDequeue = false,
  ): Promise<number> {
    await this.readyFor(key, true);
    try {
      const result = await Promise.race([
        this.pool.query(this.sql.save(withTotals, withAudit, withDequeue), values),
        this.poolEnded,
      ]);
      return result.rowCount ?? 0;
    } catch (error) {
      throw new SessionSaveFailedError(key.sessionId, error, {
        unreachable: databaseUnreachable(error),
      });
    }
  }

  /** Whether any named user has sessions (for the isolation warning). */
  async hasNamedOwners(): Promise<boolean> {
    const { rows } = await this.query<{ named: boolean }>(
      'list sessions',
      {},
      () => this.sql.namedOwners(),
      [],
    );
    return rows[0]?.named === true;
  }

  /** Counts one statement's written values (see `stats`). */
  count(values: readonly unknown[]): void {
    this.batches += 1;
    for (const value of values.flat()) {
      if (typeof value === 'string') this.bytesWritten += Buffer.byteLength(value, 'utf8');
    }
  }

  /** Statements and bytes of values written since the database was opened. */
  stats(): StoreStats {
    return { batches: this.batches, bytesWritten: this.bytesWritten };
  }

  /**
   * LISTENs on `channels` with one dedicated connection (made like the pool's): `onNotify` per
   * notification (with its channel and payload), `onLost` once when the connection breaks;
   * `hold(false)` lets the process exit with it open (`SharedListen` while it lingers unused).
   * A failure to listen is `StoreUnavailableError`.
   */
  async listen(
    channels: readonly string[],
    onNotify: (channel: string, payload: string) => void,
    onLost: (error: unknown) => void,
  ): Promise<ListenConnection> {
    await this.ready();
    const client = new pg.Client({
      ...(this.pool.options as pg.ClientConfig),
      keepAlive: true,
      stream: this.openSocket,
    });
    // `ref`/`unref` (of its socket) are pg's own since 8.7, not in its type declarations.
    const socket = client as unknown as { ref(): void; unref(): void };
    let closed = false;
    const end = async (): Promise<void> => {
      closed = true;
      // Held while it ends: `end()` resolves when the server's goodbye is read, which an
      // unref'd socket (lingering unused) would let the process exit before (an `await
      // store.close()` that never settles).
      socket.ref();
      await client.end().catch(() => undefined);
    };
    const lost = (error: unknown): void => {
      if (closed) return;
      void end();
      onLost(error);
    };
    client.on('error', lost);
    client.on('end', () => lost(new Error('the listening connection ended')));
    client.on('notification', (message) => {
      if (channels.includes(message.channel)) onNotify(message.channel, message.payload ?? '');
    });
    try {
      await client.connect();
      await client.query(channels.map((channel) => `LISTEN ${quoteIdent(channel)}`).join('; '));
    } catch (error) {
      await end();
      throw new StoreUnavailableError('listen for notifications', error);
    }
    return { close: end, hold: (hold) => (hold ? socket.ref() : socket.unref()) };
  }

  /**
   * Destroys the sockets of the connections the store made, without a goodbye (a server that
   * no longer answers never reads one): their statements fail, their `end()` settles, and a
   * connection asked for later fails at once. A caller-owned pool's connections are left alone.
   */
  cutOff(): void {
    this.cut = true;
    for (const socket of this.sockets) socket.destroy();
  }

  /**
   * Resolves once every socket the store made is closed. `pg` forgets a connection it ends
   * before its socket closes (the server's goodbye), so a pool ended does not mean released.
   * Each is held meanwhile (as the LISTEN connection is while it ends), so an awaited close
   * settles before the process could exit.
   */
  async released(): Promise<void> {
    const closing = [...this.sockets].map((socket) => {
      socket.ref();
      // Not `events.once`: an 'error' (a reset) before the close would reject it.
      return new Promise((resolve) => socket.once('close', resolve));
    });
    await Promise.all(closing);
  }

  /** Ends the pool if this created it; a caller-owned pool is left open. */
  async close(): Promise<void> {
    if (this.ownsPool) {
      await this.pool.end();
      this.endPool(new Error('the store was closed'));
    } else this.pool.off('error', ignoreIdleError);
  }

  private async readyFor(key: Partial<SessionKey>, saving = false): Promise<void> {
    try {
      await this.ready();
    } catch (error) {
      if (saving && !(error instanceof AgentStateError)) {
        throw new SessionSaveFailedError(key.sessionId ?? '', error);
      }
      throw error;
    }
  }
}

/** The pool's 'error' listener: an idle connection ended (the pool has dropped it). */
function ignoreIdleError(): void {}
