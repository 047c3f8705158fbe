import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteTestDatabase } from '../../test/databases.js';
import { openDatabase } from './database.js';
import { GenerationCache } from './generation.js';
import type { Database } from './schema.js';

// Which commits empty which caches, on SQLite (PostgreSQL has no generation: every read loads).
// Scratch tables of their own; `users` here is a stand-in with the change-marker column.

// biome-ignore lint/suspicious/noExplicitAny: scratch tables
type Db = Kysely<any>;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function scratch() {
  const handle = await createSqliteTestDatabase({ empty: true });
  cleanups.push(() => handle.destroy());
  const { url } = handle;
  const db = handle.db as unknown as Db;
  await sql`create table users (id integer primary key, name text not null, data_version integer not null default 0)`.execute(
    db,
  );
  await sql`create table notes (id integer primary key, user_id integer not null references users (id) on delete cascade, body text)`.execute(
    db,
  );
  await sql`create table other (id integer primary key, v text)`.execute(db);
  await db.insertInto('users').values({ id: 1, name: 'alice' }).execute();
  return { db, url, typed: handle.db };
}

/** A cache on `tables` with one key, and how many times it had to load it. */
function probe(db: Kysely<Database>, tables?: readonly string[]) {
  const cache = new GenerationCache<string, number>(db, tables);
  let loads = 0;
  return {
    get: () => cache.get('k', async () => ++loads),
    /** Whether the value is still cached: a get that loads says no. */
    async kept() {
      const before = loads;
      await cache.get('k', async () => ++loads);
      return loads === before;
    },
  };
}

describe('GenerationCache on SQLite', () => {
  it('keeps its values across commits to other tables, and drops them after one to its own', async () => {
    const { db, typed } = await scratch();
    const users = probe(typed, ['users']);
    const everything = probe(typed);
    await users.get();
    await everything.get();
    await db.insertInto('other').values({ v: 'x' }).execute();
    expect(await users.kept()).toBe(true);
    expect(await everything.kept()).toBe(false);
    await db.transaction().execute((trx) => trx.updateTable('users').set({ name: 'alicia' }).execute());
    expect(await users.kept()).toBe(false);
  });

  it('an update of nothing but the change marker keeps caches of the table, not those of the marker', async () => {
    const { db, typed } = await scratch();
    const rows = probe(typed, ['users']);
    const versions = probe(typed, ['users', 'users.data_version']);
    await rows.get();
    await versions.get();
    await db
      .updateTable('users')
      .set((eb) => ({ data_version: eb('data_version', '+', 1) }))
      .where('id', '=', 1)
      .execute();
    expect(await rows.kept()).toBe(true);
    expect(await versions.kept()).toBe(false);
    // The marker and another column together: a change of the table.
    await db
      .updateTable('users')
      .set((eb) => ({ data_version: eb('data_version', '+', 1), name: 'al' }))
      .execute();
    expect(await rows.kept()).toBe(false);
  });

  it('a cascading delete, raw SQL and DDL drop every cache', async () => {
    const { db, typed } = await scratch();
    const others = probe(typed, ['other']);
    await others.get();
    // No cascade: deleting from `notes` changes `notes` alone.
    await db.deleteFrom('notes').execute();
    expect(await others.kept()).toBe(true);
    // Deleting a user deletes their notes (ON DELETE CASCADE): any table may have changed.
    await db.deleteFrom('users').where('id', '=', 1).execute();
    expect(await others.kept()).toBe(false);
    await sql`insert into users (id, name) values (2, 'bob')`.execute(db);
    expect(await others.kept()).toBe(false);
    await sql`create table more (id integer primary key)`.execute(db);
    expect(await others.kept()).toBe(false);
  });

  it('a commit through another connection (another process) drops every cache', async () => {
    const { url, typed } = await scratch();
    const cache = probe(typed, ['users']);
    await cache.get();
    const other = openDatabase(url);
    try {
      await (other.db as unknown as Db).insertInto('other').values({ v: 'y' }).execute();
    } finally {
      await other.close();
    }
    // data_version is read once per turn of the event loop.
    await new Promise((resolve) => setImmediate(resolve));
    expect(await cache.kept()).toBe(false);
  });

  it('lets misses arriving together share one load, and keeps no value a commit overtook', async () => {
    const { db, typed } = await scratch();
    const cache = new GenerationCache<string, number>(typed, ['users']);
    let loads = 0;
    const load = async () => {
      loads += 1;
      return loads;
    };
    expect(await Promise.all([cache.get('k', load), cache.get('k', load), cache.get('k', load)])).toEqual([
      1, 1, 1,
    ]);
    expect(loads).toBe(1);
    // A load during which users change: answered, not kept.
    const slow = cache.get('j', async () => {
      await db.updateTable('users').set({ name: 'x' }).execute();
      return ++loads;
    });
    expect(await slow).toBe(2);
    expect(await cache.get('j', load)).toBe(3);
  });

  it('without a generation (PostgreSQL) loads every time', async () => {
    const plain = new Kysely<Database>({
      dialect: new SqliteDialect({ database: new SqliteDatabase(':memory:') }),
    });
    cleanups.push(() => plain.destroy());
    const cache = probe(plain, ['users']);
    await cache.get();
    expect(await cache.kept()).toBe(false);
  });
});
