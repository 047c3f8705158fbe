import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createMovie,
  createUser,
  setupTestApp,
  type TestContext,
  type TestUser,
} from '../../../test/harness.js';
import { AppError } from '../../shared/errors.js';

// The library's read side beyond the API's lists: totals, one movie's state, the played movies'
// filters, and editing one entry.
describe('the library for the pages', () => {
  let ctx: TestContext;
  let alice: TestUser;
  let owner: { id: number; watchlistAutoRemove: boolean; timezone: string };
  beforeEach(async () => {
    ctx = await setupTestApp();
    alice = await createUser(ctx, { name: 'alice' });
    owner = { id: alice.user.id, watchlistAutoRemove: false, timezone: 'UTC' };
  });
  afterEach(() => ctx.close());

  const play = (movieId: number, watchedAt: string | null, plays = 1, comment: string | null = null) => ({
    movieId,
    watchedAt,
    plays,
    comment,
  });
  const titles = async (query: Parameters<typeof ctx.library.list<'played'>>[2]) =>
    (await ctx.library.list('played', alice.user, query)).items.map((entry) => entry.movie.title);

  it('tells what the user keeps of one movie: entries, rating, watchlist, like', async () => {
    const movie = await createMovie(ctx);
    expect(await ctx.library.movieState(alice.user, movie.id)).toEqual({
      entries: [],
      rating: null,
      ratedAt: null,
      watchlistedAt: null,
      likedAt: null,
    });
    ctx.clock.set('2024-06-15T23:30:00.000Z');
    await ctx.library.write(owner.id, async (lib) => {
      await lib.addPlays([
        play(movie.id, '2024-01-01', 2, 'first'),
        play(movie.id, null),
        play(movie.id, '2024-05-05'),
      ]);
      await lib.setRatings([{ movieId: movie.id, rating: 9 }]);
      await lib.addToWatchlist([movie.id]);
      await lib.likeMovies([movie.id]);
    });
    await ctx.users.update('alice', { timezone: 'Asia/Tokyo' });
    const tokyo = (await ctx.users.findByName('alice'))!;
    expect(await ctx.library.movieState(tokyo, movie.id)).toEqual({
      entries: [
        { watchedAt: '2024-05-05', plays: 1, comment: null, position: 1 },
        { watchedAt: '2024-01-01', plays: 2, comment: 'first', position: 1 },
        { watchedAt: null, plays: 1, comment: null, position: 1 },
      ],
      rating: 9,
      ratedAt: '2024-06-16',
      watchlistedAt: '2024-06-16',
      likedAt: '2024-06-16',
    });
  });

  it('narrows the played movies by genre, decade, language, rating and person, and sorts by plays', async () => {
    const [a, b, c] = [
      await createMovie(ctx, { title: 'Alpha', release_date: '1994-03-01' }),
      await createMovie(ctx, { title: 'Beta', release_date: '2001-05-05' }),
      await createMovie(ctx, { title: 'Gamma', release_date: '1999-12-31' }),
    ];
    await ctx.db.updateTable('movies').set({ original_language: 'fr' }).where('id', '=', b.id).execute();
    const drama = await ctx.db
      .insertInto('genres')
      .values({ tmdb_id: 18, name: 'Drama' })
      .returning('id')
      .executeTakeFirstOrThrow();
    await ctx.db
      .insertInto('movie_genres')
      .values([
        { movie_id: a.id, genre_id: drama.id, position: 0 },
        { movie_id: c.id, genre_id: drama.id, position: 0 },
      ])
      .execute();
    const person = await ctx.db
      .insertInto('people')
      .values({
        tmdb_id: 5,
        name: 'Ada Director',
        profile_path: null,
        known_for_department: 'Directing',
        updated_at: '2024-01-01T00:00:00.000Z',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await ctx.db
      .insertInto('movie_crew')
      .values({ movie_id: b.id, person_id: person.id, department: 'Directing', job: 'Director', position: 0 })
      .execute();
    await ctx.db
      .insertInto('movie_cast')
      .values({ movie_id: c.id, person_id: person.id, character: 'Herself', cast_order: 0 })
      .execute();
    await ctx.library.write(owner.id, async (lib) => {
      await lib.addPlays([play(a.id, '2024-01-01'), play(b.id, '2024-01-02', 5), play(c.id, null, 2)]);
      await lib.setRatings([
        { movieId: a.id, rating: 8 },
        { movieId: c.id, rating: 4 },
      ]);
    });
    const sorted = { sortBy: 'title' as const, sortOrder: 'asc' as const };
    expect(await titles({ ...sorted, genreId: 18 })).toEqual(['Alpha', 'Gamma']);
    expect(await titles({ ...sorted, decade: 1990 })).toEqual(['Alpha', 'Gamma']);
    expect(await titles({ ...sorted, decade: 2000 })).toEqual(['Beta']);
    expect(await titles({ ...sorted, language: 'fr' })).toEqual(['Beta']);
    expect(await titles({ ...sorted, minRating: 5 })).toEqual(['Alpha']);
    expect(await titles({ ...sorted, personId: person.id })).toEqual(['Beta', 'Gamma']);
    expect(await titles({ ...sorted, genreId: 18, personId: person.id })).toEqual(['Gamma']);
    expect(await titles({ sortBy: 'plays', sortOrder: 'desc' })).toEqual(['Beta', 'Gamma', 'Alpha']);
    expect(await ctx.library.facets(alice.user, 'played')).toEqual({
      genres: [{ id: 18, name: 'Drama', count: 2 }],
      languages: [
        { code: 'en', count: 2 },
        { code: 'fr', count: 1 },
      ],
      decades: [
        { decade: 2000, count: 1 },
        { decade: 1990, count: 2 },
      ],
    });
  });

  it('reads the diary for its page: by title, oldest first, one day; a day needs a month', async () => {
    const heat = await createMovie(ctx, { title: 'Heat', original_title: 'Heat' });
    const amelie = await createMovie(ctx, { title: 'Amélie', original_title: 'Le Fabuleux Destin' });
    await ctx.library.write(owner.id, (lib) =>
      lib.logEntries([
        { ...play(heat.id, '2024-06-02'), tags: ['noir'] },
        { ...play(amelie.id, '2024-06-02'), rating: 8 },
        play(heat.id, '2024-06-14'),
        play(amelie.id, '2023-01-01'),
      ]),
    );
    const diary = async (query: Parameters<typeof ctx.library.list<'diary'>>[2]) =>
      (await ctx.library.list('diary', alice.user, query)).items.map(
        (entry) => `${entry.movie.title} ${entry.watchedAt}`,
      );
    expect(await diary({ search: 'fabuleux' })).toEqual(['Amélie 2024-06-02', 'Amélie 2023-01-01']);
    expect(await diary({ sortOrder: 'asc' })).toEqual([
      'Amélie 2023-01-01',
      'Heat 2024-06-02',
      'Amélie 2024-06-02',
      'Heat 2024-06-14',
    ]);
    expect(await diary({ year: 2024, month: 6, day: 2, sortOrder: 'asc' })).toEqual([
      'Heat 2024-06-02',
      'Amélie 2024-06-02',
    ]);
    expect(await diary({ tag: 'NOIR', search: 'heat', rewatch: false })).toEqual(['Heat 2024-06-02']);
    expect(await diary({ rewatch: true, sortOrder: 'asc' })).toEqual([
      'Amélie 2024-06-02',
      'Heat 2024-06-14',
    ]);
    await expect(ctx.library.list('diary', alice.user, { year: 2024, day: 2 })).rejects.toMatchObject({
      statusCode: 400,
      message: 'day needs a month: ?year=2025&month=1&day=31',
    });
  });

  it('edits an entry: its plays, comment, position and date; refuses to move it onto another', async () => {
    const movie = await createMovie(ctx);
    await ctx.library.write(owner.id, (lib) =>
      lib.addPlays([play(movie.id, '2024-01-01', 2, 'first'), play(movie.id, '2024-02-02')]),
    );
    await ctx.library.write(owner.id, (lib) =>
      lib.editEntry(movie.id, '2024-01-01', { to: '2024-01-03', plays: 4, comment: 'moved', position: 2 }),
    );
    expect((await ctx.library.movieState(alice.user, movie.id)).entries).toEqual([
      { watchedAt: '2024-02-02', plays: 1, comment: null, position: 1 },
      { watchedAt: '2024-01-03', plays: 4, comment: 'moved', position: 2 },
    ]);
    const onto = ctx.library.write(owner.id, (lib) =>
      lib.editEntry(movie.id, '2024-01-03', { to: '2024-02-02', plays: 1, comment: null, position: 1 }),
    );
    await expect(onto).rejects.toMatchObject({ statusCode: 400 });
    const missing = ctx.library.write(owner.id, (lib) =>
      lib.editEntry(movie.id, '1999-01-01', { to: '1999-01-02', plays: 1, comment: null, position: 1 }),
    );
    await expect(missing).rejects.toBeInstanceOf(AppError);
    await expect(missing).rejects.toMatchObject({ statusCode: 404, code: 'EntryNotFound' });
    expect((await ctx.library.movieState(alice.user, movie.id)).entries).toHaveLength(2);
  });

  it('edits the entry of an unknown date: gives it a date, and takes a dated one back to unknown', async () => {
    const movie = await createMovie(ctx);
    await ctx.library.write(owner.id, (lib) =>
      lib.addPlays([play(movie.id, null, 2, 'somewhen'), play(movie.id, '2024-02-02')]),
    );
    await ctx.library.write(owner.id, (lib) =>
      lib.editEntry(movie.id, null, { to: '2024-01-05', plays: 3, comment: 'found it', position: 1 }),
    );
    expect((await ctx.library.movieState(alice.user, movie.id)).entries).toEqual([
      { watchedAt: '2024-02-02', plays: 1, comment: null, position: 1 },
      { watchedAt: '2024-01-05', plays: 3, comment: 'found it', position: 1 },
    ]);
    // No unknown-date entry any more: editing it is a 404.
    const gone = ctx.library.write(owner.id, (lib) =>
      lib.editEntry(movie.id, null, { to: null, plays: 1, comment: null, position: 1 }),
    );
    await expect(gone).rejects.toMatchObject({ statusCode: 404, code: 'EntryNotFound' });
    await ctx.library.write(owner.id, (lib) =>
      lib.editEntry(movie.id, '2024-02-02', { to: null, plays: 5, comment: 'undated', position: 1 }),
    );
    // Onto the unknown date while one exists: refused, nothing changed.
    await ctx.library.write(owner.id, (lib) => lib.addPlays([play(movie.id, '2024-03-03')]));
    const onto = ctx.library.write(owner.id, (lib) =>
      lib.editEntry(movie.id, '2024-03-03', { to: null, plays: 1, comment: null, position: 1 }),
    );
    await expect(onto).rejects.toMatchObject({ statusCode: 400 });
    expect((await ctx.library.movieState(alice.user, movie.id)).entries).toEqual([
      { watchedAt: '2024-03-03', plays: 1, comment: null, position: 1 },
      { watchedAt: '2024-01-05', plays: 3, comment: 'found it', position: 1 },
      { watchedAt: null, plays: 5, comment: 'undated', position: 1 },
    ]);
  });
});
