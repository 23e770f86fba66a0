/**
 * `agentstate-runtime/postgres`: the session store for many processes on one PostgreSQL database.
 * Needs the `pg` package (an optional peer dependency of agentstate).
 */
export {
  PostgresSessionStore,
  type PostgresSessionStoreOptions,
} from './persistence/postgres/postgres-session-store.js';
export { POSTGRES_SCHEMA_VERSION } from './persistence/postgres/postgres-schema.js';
