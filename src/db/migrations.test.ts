import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../test/harness.js';
import { catchUpStatistics, statisticsFromScratch } from '../modules/library/statistics-aggregates.js';
import { migrations } from './migrations/index.js';
import { migrateToLatest } from './migrator.js';
import type { Database } from './schema.js';

const APP_TABLES = [
  'api_tokens',
  'collections',
  'companies',
  'countries',
  'entry_tags',
  'feeds',
  'genres',
  'jobs',
  'languages',
  'likes',
  'list_movies',
  'lists',
  'media_server_backfill_pages',
  'media_server_connections',
  'movie_cast',
  'movie_companies',
  'movie_countries',
  'movie_crew',
  'movie_genres',
  'movie_languages',
  'movies',
  'oidc_logins',
  'password_resets',
  'people',
  'rate_limits',
  'ratings',
  'sessions',
  'statistics_counting',
  'statistics_days',
  'statistics_groups',
  'statistics_movies',
  'statistics_pending',
  'tags',
  'two_factor',
  'two_factor_challenges',
  'two_factor_recovery_codes',
  'user_external_ids',
  'user_identities',
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

  it('fill the statistics aggregates (0017) from the plays stored before, as computed from scratch', async () => {
    const database = await createTestDatabase({ empty: true });
    const { db } = database;
    try {
      const names = Object.keys(migrations);
      const at = names.indexOf('0017_statistics_aggregates');
      for (const name of names.slice(0, at)) await migrations[name]!.up(db);
      const now = new Date().toISOString();
      const users = await db
        .insertInto('users')
        .values(
          ['ann', 'ben'].map((name) => ({
            name,
            email: `${name}@x.test`,
            password_hash: 'h',
            is_admin: 0,
            privacy: 'users' as const,
            timezone: 'UTC',
            watchlist_auto_remove: 1,
            created_at: now,
            updated_at: now,
          })),
        )
        .returning('id')
        .execute();
      const movies = await db
        .insertInto('movies')
        .values([
          { title: 'A', release_date: '1999-05-01', original_language: 'en', runtime: 100, created_at: now },
          { title: 'B', release_date: null, original_language: 'fr', runtime: null, created_at: now },
          { title: 'C', release_date: '2021-01-01', original_language: null, runtime: 90, created_at: now },
        ])
        .returning('id')
        .execute();
      const [a, b, c] = movies.map((m) => m.id) as [number, number, number];
      const genres = await db
        .insertInto('genres')
        .values([
          { tmdb_id: 18, name: 'Drama' },
          { tmdb_id: 35, name: 'Comedy' },
        ])
        .returning('id')
        .execute();
      await db
        .insertInto('movie_genres')
        .values([
          { movie_id: a, genre_id: genres[0]!.id, position: 0 },
          { movie_id: a, genre_id: genres[1]!.id, position: 1 },
          { movie_id: c, genre_id: genres[1]!.id, position: 0 },
        ])
        .execute();
      await db.insertInto('countries').values({ code: 'FR', name: 'France' }).execute();
      await db
        .insertInto('movie_countries')
        .values({ movie_id: b, country_code: 'FR', position: 0 })
        .execute();
      const people = await db
        .insertInto('people')
        .values([1, 2, 3].map((i) => ({ tmdb_id: 100 + i, name: `P${i}`, updated_at: now })))
        .returning('id')
        .execute();
      const [p1, p2, p3] = people.map((p) => p.id) as [number, number, number];
      await db
        .insertInto('movie_cast')
        .values([
          // p1 twice on A's bill (counted once), p3 past the 15th place on C's.
          { movie_id: a, person_id: p1, character: null, cast_order: 0, first_place: 1 },
          { movie_id: a, person_id: p2, character: null, cast_order: 1, first_place: 1 },
          { movie_id: a, person_id: p1, character: null, cast_order: 2, first_place: 0 },
          { movie_id: c, person_id: p2, character: null, cast_order: 0, first_place: 1 },
          { movie_id: c, person_id: p3, character: null, cast_order: 15, first_place: 1 },
        ])
        .execute();
      await db
        .insertInto('movie_crew')
        .values({ movie_id: b, person_id: p3, department: 'Directing', job: 'Director', position: 0 })
        .execute();
      const play = (user: number, movie: number, watched_at: string | null, plays = 1) => ({
        user_id: user,
        movie_id: movie,
        watched_at,
        plays,
        position: 1,
        created_at: now,
        updated_at: now,
      });
      const [ann, ben] = users.map((u) => u.id) as [number, number];
      await db
        .insertInto('watch_dates')
        .values([
          play(ann, a, '2023-12-31', 2),
          play(ann, a, '2024-01-01'),
          play(ann, a, null, 3),
          play(ann, b, '2024-01-01'),
          play(ann, c, '2022-06-06'),
          play(ben, a, '2024-01-01', 4),
        ])
        .execute();

      await migrations['0017_statistics_aggregates']!.up(db);
      expect(await db.selectFrom('statistics_pending').selectAll().execute()).toEqual([]);
      // The migrations after it, so that today's computation from scratch reads the columns it knows;
      // 0021 adds figures of its own (compared below, once counted).
      for (const name of Object.keys(migrations).filter((n) => n > '0017_statistics_aggregates')) {
        await migrations[name]!.up(db);
      }
      const scratch = statisticsFromScratch();
      // The rows' values, of `columns` only when given (what 0017 fills), except groups of `kinds`.
      const sorted = async (
        query: { execute(db: Kysely<Database>): Promise<{ rows: object[] }> },
        columns?: string[],
        kinds: string[] = [],
      ) =>
        (await query.execute(db)).rows
          .filter((row) => !kinds.includes((row as { kind?: string }).kind ?? ''))
          .map((row) =>
            JSON.stringify(
              (columns ?? Object.keys(row)).map((column) => String((row as Record<string, unknown>)[column])),
            ),
          )
          .sort();
      const table = (
        name: 'statistics_movies' | 'statistics_days' | 'statistics_groups',
        columns: string[],
      ) =>
        sorted({
          execute: async () => ({
            rows: await db
              .selectFrom(name)
              .select(columns as never[])
              .execute(),
          }),
        });
      const columns = {
        statistics_movies: ['user_id', 'movie_id', 'scope', 'entries', 'plays'],
        statistics_days: ['user_id', 'watched_at', 'entries', 'plays'],
        statistics_groups: ['user_id', 'kind', 'scope', 'item', 'movies', 'plays', 'minutes'],
      };
      const later = ['rating', 'rewatches'];
      expect(await table('statistics_movies', columns.statistics_movies)).toEqual(
        await sorted(scratch.movies, columns.statistics_movies),
      );
      expect(await table('statistics_days', columns.statistics_days)).toEqual(
        await sorted(scratch.days, columns.statistics_days),
      );
      const groups = await table('statistics_groups', columns.statistics_groups);
      expect(groups).toEqual(await sorted(scratch.groups, columns.statistics_groups, later));
      // Ann's all-time totals and actors, by hand: 8 plays of 3 movies, 6 × 100 + 1 × 90 minutes; p1
      // once in A, p2 in A and C, p3 not billed.
      expect(groups).toContain(JSON.stringify([ann, 'total', 0, '', 3, 8, 690].map(String)));
      expect(groups).toContain(JSON.stringify([ann, 'actor', 0, '101', 1, 6].map(String).concat('0')));
      expect(groups).toContain(JSON.stringify([ann, 'actor', 0, '102', 2, 7].map(String).concat('0')));
      expect(groups.some((row) => row.includes('"103"') && row.includes('"actor"'))).toBe(false);

      // 0021 noted every counted movie: the first reads count their rewatches and ratings.
      expect(await db.selectFrom('statistics_pending').selectAll().execute()).toHaveLength(4);
      for (const user of [ann, ben]) await catchUpStatistics(db, user);
      const all = [...columns.statistics_movies, 'rewatches', 'rating'];
      expect(await table('statistics_movies', all)).toEqual(await sorted(scratch.movies, all));
      expect(await table('statistics_groups', columns.statistics_groups)).toEqual(
        await sorted(scratch.groups, columns.statistics_groups),
      );
      // Ann's movie A: 2023-12-31, then 2024-01-01 (a rewatch), and the undated entry.
      expect(
        await db
          .selectFrom('statistics_groups')
          .select(['scope', 'movies'])
          .where('user_id', '=', ann)
          .where('kind', '=', 'rewatches')
          .orderBy('scope')
          .execute(),
      ).toEqual([
        { scope: 0, movies: 1 },
        { scope: 2024, movies: 1 },
      ]);
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
