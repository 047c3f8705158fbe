import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../test/harness.js';
import { migrations } from './migrations/index.js';
import { migrateToLatest } from './migrator.js';

describe('migrations', () => {
  it('apply from empty, leave every table, and are a no-op the second time', async () => {
    const database = await createTestDatabase(); // migrates from empty
    try {
      const tables = await sql<{
        name: string;
      }>`select name from sqlite_master where type = 'table' order by name`.execute(database.db);
      expect(tables.rows.map((r) => r.name)).toEqual(
        expect.arrayContaining([
          'api_tokens',
          'genres',
          'movie_genres',
          'movies',
          'ratings',
          'users',
          'watch_dates',
          'watchlist',
        ]),
      );
      expect(await migrateToLatest(database.db)).toEqual([]);
      const applied = await database.db
        .selectFrom('kysely_migration' as never)
        .select('name' as never)
        .execute();
      expect(applied.map((r) => (r as { name: string }).name)).toEqual(Object.keys(migrations));
    } finally {
      await database.destroy();
    }
  });

  it('go down to empty and up again', async () => {
    const database = await createTestDatabase();
    try {
      for (const name of Object.keys(migrations).reverse()) await migrations[name]!.down!(database.db);
      const left = await sql<{
        name: string;
      }>`select name from sqlite_master where type = 'table' and name not like 'kysely%' and name not like 'sqlite%'`.execute(
        database.db,
      );
      expect(left.rows).toEqual([]);
      for (const name of Object.keys(migrations)) await migrations[name]!.up(database.db);
    } finally {
      await database.destroy();
    }
  });

  it('keep one watch-date row per user, movie and date, the unknown date included', async () => {
    const database = await createTestDatabase();
    const { db } = database;
    try {
      const now = new Date().toISOString();
      const user = await db
        .insertInto('users')
        .values({
          name: 'u',
          email: 'u@x.test',
          password_hash: 'h',
          is_admin: 0,
          privacy: 'users',
          timezone: 'UTC',
          watchlist_auto_remove: 1,
          created_at: now,
          updated_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const movie = await db
        .insertInto('movies')
        .values({ title: 'M', created_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      const row = (watched_at: string | null) => ({
        user_id: user.id,
        movie_id: movie.id,
        watched_at,
        plays: 1,
        position: 1,
        created_at: now,
        updated_at: now,
      });
      await db.insertInto('watch_dates').values(row('2024-01-01')).execute();
      await db.insertInto('watch_dates').values(row(null)).execute();
      await expect(db.insertInto('watch_dates').values(row('2024-01-01')).execute()).rejects.toThrow(
        /UNIQUE/,
      );
      await expect(db.insertInto('watch_dates').values(row(null)).execute()).rejects.toThrow(/UNIQUE/);
      await expect(
        db
          .insertInto('watch_dates')
          .values({ ...row('2024-01-02'), movie_id: 999 })
          .execute(),
      ).rejects.toThrow(/FOREIGN KEY/);
    } finally {
      await database.destroy();
    }
  });
});
