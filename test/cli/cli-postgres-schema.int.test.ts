import { beforeAll, describe, expect, it } from 'vitest';
import { StoreNotFoundError } from '../../src/index.js';
import { PostgresSessionStore } from '../../src/postgres.js';
import { buildCli, runCli, type BuiltCli } from '../helpers/cli-fixtures.js';
import { usePostgres } from '../helpers/postgres-tests.js';

/**
 * Issue 40, "Operator commands create nothing": the command line on a PostgreSQL schema that
 * holds no store (a typo) answers not found and creates neither the schema nor a table, as it
 * creates no files in a folder that holds no LevelDB database.
 */
const pgt = usePostgres();
let cli: BuiltCli;

beforeAll(async () => {
  cli = await buildCli();
}, 240_000);

/** The schemas of the file's database named `name`. */
async function schemasNamed(name: string): Promise<string[]> {
  const { rows } = await pgt.pool.query<{ nspname: string }>(
    'SELECT nspname FROM pg_namespace WHERE nspname = $1',
    [name],
  );
  return rows.map((r) => r.nspname);
}

/** The store's tables in `schema`. */
async function storeTables(schema: string): Promise<string[]> {
  const { rows } = await pgt.pool.query<{ table_name: string }>(
    "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_name LIKE 'agentstate%'",
    [schema],
  );
  return rows.map((r) => r.table_name);
}

describe('agentstate on a PostgreSQL schema that holds no store', () => {
  it('a mistyped --schema is not found (exit 3, STORE_NOT_FOUND) and the schema is not created', async () => {
    const typo = pgt.schema('ordrs');
    const run = await runCli(cli, ['cancel', 'order', '--user', 'u1', '--schema', typo], {
      env: { AGENTSTATE_POSTGRES_URL: pgt.url },
    });
    expect(run.code).toBe(3);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      `agentstate: The PostgreSQL schema "${typo}" holds no agentstate store (nothing was created) [STORE_NOT_FOUND]\n`,
    );
    expect(await schemasNamed(typo)).toEqual([]);
  });

  it('without --schema, a database whose public schema holds no store gets no tables', async () => {
    const run = await runCli(cli, ['cancel', 'order', '--user', 'u1', '--postgres', pgt.url]);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/schema "public" holds no agentstate store.*\[STORE_NOT_FOUND\]/);
    expect(await storeTables('public')).toEqual([]);
  });

  it("a schema an app's store made is found: the command goes on to the session", async () => {
    const { schema, cleanup } = await pgt.freshStore('orders');
    try {
      const run = await runCli(cli, [
        'cancel',
        'nobody',
        '--user',
        'u1',
        '--postgres',
        pgt.url,
        '--schema',
        schema,
      ]);
      expect(run.code).toBe(3);
      expect(run.stderr).toMatch(/\[SESSION_NOT_FOUND\]/);
    } finally {
      await cleanup();
    }
  });

  it('the store option create: false is the same in an app: StoreNotFoundError, nothing created; the default creates', async () => {
    const typo = pgt.schema('ordrs');
    await expect(
      PostgresSessionStore.open({ pool: pgt.pool, schema: typo, create: false }),
    ).rejects.toBeInstanceOf(StoreNotFoundError);
    expect(await schemasNamed(typo)).toEqual([]);
    await expect(
      // @ts-expect-error -- a string where a boolean goes
      PostgresSessionStore.open({ pool: pgt.pool, schema: typo, create: 'no' }),
    ).rejects.toThrow(/option "create" must be a boolean/);
    const store = await PostgresSessionStore.open({ pool: pgt.pool, schema: typo });
    await store.close();
    expect(await schemasNamed(typo)).toEqual([typo]);
    expect(await storeTables(typo)).toContain('agentstate_sessions');
    const reopened = await PostgresSessionStore.open({
      pool: pgt.pool,
      schema: typo,
      create: false,
    });
    await reopened.close();
    await pgt.pool.query(`DROP SCHEMA "${typo}" CASCADE`);
  });
});
