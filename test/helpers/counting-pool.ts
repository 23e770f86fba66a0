import type pg from 'pg';

/** A statement run through a counted pool: its text and the rows it answered (0 if it failed). */
export interface CountedStatement {
  text: string;
  rows: number;
}

/**
 * `pool` seen through a proxy that keeps every statement run by its `query` (the pool's own
 * `query`, which the store's single statements use; a client checked out for a transaction is
 * not seen).
 */
export function countingPool(pool: pg.Pool): { pool: pg.Pool; statements: CountedStatement[] } {
  const statements: CountedStatement[] = [];
  const counting = new Proxy(pool, {
    get(target, name, receiver) {
      if (name !== 'query') return Reflect.get(target, name, receiver) as unknown;
      return async (...args: Parameters<pg.Pool['query']>) => {
        const query = Reflect.get(target, 'query') as (...a: unknown[]) => unknown;
        const text = typeof args[0] === 'string' ? args[0] : (args[0] as pg.QueryConfig).text;
        const statement: CountedStatement = { text, rows: 0 };
        statements.push(statement);
        const result = (await Reflect.apply(query, target, args)) as pg.QueryResult;
        statement.rows = result.rows.length;
        return result;
      };
    },
  });
  return { pool: counting, statements };
}
