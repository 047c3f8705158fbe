import { describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../test/harness.js';
import { migrations } from './migrations/index.js';
import { migrateToLatest } from './migrator.js';

const APP_TABLES = [
  'api_tokens',
  'collections',
  'companies',
  'countries',
  'genres',
  'jobs',
  'languages',
  'movie_cast',
  'movie_companies',
  'movie_countries',
  'movie_crew',
  'movie_genres',
  'movie_languages',
  'movies',
  'password_resets',
  'people',
  'rate_limits',
  'ratings',
  'sessions',
  'two_factor',
  'two_factor_challenges',
  'two_factor_recovery_codes',
  'user_external_ids',
  'users',
  'watch_dates',
  'watchlist',
  'webhook_events',
  'webhooks',
];

describe('migrations', () => {
  it('apply from empty, create every table, and are a no-op the second time', async () => {
    const database = await createTestDatabase({ empty: true });
    try {
      expect(await migrateToLatest(database.db)).toEqual(Object.keys(migrations));
      const tables = (await database.db.introspection.getTables()).map((t) => t.name);
      expect(tables.filter((name) => !name.startsWith('kysely_')).sort()).toEqual(APP_TABLES);
      expect(await migrateToLatest(database.db)).toEqual([]);
    } finally {
      await database.destroy();
    }
  });

  it('go down to empty and up again', async () => {
    const database = await createTestDatabase();
    try {
      for (const name of Object.keys(migrations).reverse()) await migrations[name]!.down!(database.db);
      const left = (await database.db.introspection.getTables()).filter((t) => !t.name.startsWith('kysely_'));
      expect(left).toEqual([]);
      for (const name of Object.keys(migrations)) await migrations[name]!.up(database.db);
      expect((await database.db.introspection.getTables()).length).toBeGreaterThanOrEqual(APP_TABLES.length);
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
        /unique/i,
      );
      await expect(db.insertInto('watch_dates').values(row(null)).execute()).rejects.toThrow(/unique/i);
      await expect(
        db
          .insertInto('watch_dates')
          .values({ ...row('2024-01-02'), movie_id: 999 })
          .execute(),
      ).rejects.toThrow(/foreign key/i);
    } finally {
      await database.destroy();
    }
  });
});
