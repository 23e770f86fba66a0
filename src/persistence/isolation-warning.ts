/**
 * Warns (through `process.emitWarning`) that sessions were queried without a userId, which
 * only reaches the anonymous bucket, in a store that holds sessions of named users.
 */
export function warnIsolation(): void {
  process.emitWarning(
    'agentstate: sessions were queried without a userId, which only reaches the anonymous ' +
      'bucket, but this store holds sessions of named users. Pass userId to query a user.',
    { type: 'IsolationWarning', code: 'AGENTSTATE_ISOLATION' },
  );
}
