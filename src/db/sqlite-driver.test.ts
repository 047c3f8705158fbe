import { type Kysely, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteTestDatabase } from '../../test/databases.js';
import { openDatabase } from './database.js';
import { firstInCommit } from './sqlite-driver.js';

// The group commit of the SQLite driver: transactions arriving in the same turn of the event loop share
// one commit, each in its own savepoint. Engine-specific, so it runs on SQLite whatever the project.

// biome-ignore lint/suspicious/noExplicitAny: a scratch table of its own
type Db = Kysely<any>;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function scratch() {
  const database = await createSqliteTestDatabase({ empty: true });
  cleanups.push(() => database.destroy());
  const db = database.db as unknown as Db;
  await sql`create table t (id integer primary key, v text not null unique)`.execute(db);
  return { db, url: database.url };
}

const values = async (db: Db) =>
  (await db.selectFrom('t').select('v').orderBy('id').execute()).map((r) => r.v as string);

/** Commits seen by another connection of the file: SQLite's data_version moves once per commit. */
async function commitsSeenBy(url: string, work: () => Promise<unknown>): Promise<number> {
  const other = openDatabase(url);
  try {
    const version = async () =>
      (await sql<{ data_version: number }>`pragma data_version`.execute(other.db)).rows[0]!.data_version;
    const before = await version();
    await work();
    return (await version()) - before;
  } finally {
    await other.close();
  }
}

describe('SQLite group commit', () => {
  it('commits transactions of the same turn together, each one resolved once committed', async () => {
    const { db, url } = await scratch();
    const commits = await commitsSeenBy(url, () =>
      Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          db.transaction().execute(async (trx) => {
            await trx
              .insertInto('t')
              .values({ v: `a${i}` })
              .execute();
            await trx
              .insertInto('t')
              .values({ v: `b${i}` })
              .execute();
          }),
        ),
      ),
    );
    expect(commits).toBe(1);
    expect(await values(db)).toHaveLength(40);
  });

  it('rolls back only the transaction that failed, with its own error', async () => {
    const { db } = await scratch();
    await db.insertInto('t').values({ v: 'taken' }).execute();
    const results = await Promise.allSettled([
      db.transaction().execute((trx) => trx.insertInto('t').values({ v: 'first' }).execute()),
      db.transaction().execute(async (trx) => {
        await trx.insertInto('t').values({ v: 'undone' }).execute();
        await trx.insertInto('t').values({ v: 'taken' }).execute();
      }),
      db.transaction().execute(async (trx) => {
        await trx.insertInto('t').values({ v: 'also undone' }).execute();
        throw new Error('changed my mind');
      }),
      db.transaction().execute((trx) => trx.insertInto('t').values({ v: 'last' }).execute()),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect(String((results[1] as PromiseRejectedResult).reason)).toMatch(/UNIQUE/);
    expect((results[2] as PromiseRejectedResult).reason).toEqual(new Error('changed my mind'));
    expect(await values(db)).toEqual(['taken', 'first', 'last']);
  });

  it('never shows a read outside transactions what is not committed yet', async () => {
    const { db } = await scratch();
    let seenInside: string[] = [];
    let seenOutside: string[] = [];
    await Promise.all([
      db.transaction().execute(async (trx) => {
        await trx.insertInto('t').values({ v: 'pending' }).execute();
        seenInside = await values(trx);
        seenOutside = await values(db);
      }),
    ]);
    expect(seenInside).toEqual(['pending']);
    expect(seenOutside).toEqual([]);
    expect(await values(db)).toEqual(['pending']);
  });

  it('answers a write outside transactions once it is committed, with its own result', async () => {
    const { db } = await scratch();
    const [inserted, failed] = await Promise.allSettled([
      db.insertInto('t').values({ v: 'x' }).returning('id').executeTakeFirstOrThrow(),
      db.insertInto('t').values({ v: 'x' }).execute(),
      db.transaction().execute((trx) => trx.insertInto('t').values({ v: 'y' }).execute()),
    ]);
    expect(inserted).toEqual({ status: 'fulfilled', value: { id: 1 } });
    expect(failed?.status).toBe('rejected');
    expect(await values(db)).toEqual(['x', 'y']);
  });

  it('claims once-per-commit work once per group, again after a rollback, and always outside one', async () => {
    const { db } = await scratch();
    const claims: boolean[] = [];
    await Promise.allSettled([
      db.transaction().execute(async (trx) => {
        claims.push(await firstInCommit(trx, 'k'));
        throw new Error('rolled back: its claim does not count');
      }),
      db.transaction().execute(async (trx) => {
        claims.push(await firstInCommit(trx, 'k'));
      }),
      db.transaction().execute(async (trx) => {
        claims.push(await firstInCommit(trx, 'k'));
      }),
    ]);
    expect(claims).toEqual([true, true, false]);
    // A new group: claimed anew. Outside a transaction: always.
    expect(await db.transaction().execute((trx) => firstInCommit(trx, 'k'))).toBe(true);
    expect(await firstInCommit(db, 'k')).toBe(true);
  });
});
