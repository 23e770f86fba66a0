/** SQLSTATE classes of a database that cannot serve now: connection, resources, shutdown. */
const UNAVAILABLE_CLASSES = ['08', '53', '57'];

/**
 * Whether a statement failed because the database could not be reached (connection refused or
 * cut, a server shutting down or starting, no connection slot) rather than for the statement
 * itself: a later try of the same statement may succeed once the database is back.
 */
export function databaseUnreachable(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) {
    return UNAVAILABLE_CLASSES.includes(code.slice(0, 2));
  }
  if (typeof code === 'string') return code.startsWith('E'); // a socket's: ECONNREFUSED, ...
  // pg's own, without a code: "Connection terminated unexpectedly", a connect timeout, ...
  return typeof message === 'string' && /connection|terminated|timeout/i.test(message);
}
