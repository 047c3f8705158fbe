import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createMovie,
  createUser,
  setupTestApp,
  type TestContext,
  type TestUser,
} from '../../../test/harness.js';
import { AppError } from '../../shared/errors.js';
import type { LibraryWriter } from './library.writer.js';

// The one write entry point of a user's library (Library.write), on the test engine.
describe('library.write', () => {
  let ctx: TestContext;
  let alice: TestUser;
  let owner: { id: number };
  beforeEach(async () => {
    ctx = await setupTestApp();
    alice = await createUser(ctx, { name: 'alice' });
    owner = { id: alice.user.id };
  });
  afterEach(() => ctx.close());

  const version = async (userId = alice.user.id) =>
    (
      await ctx.db
        .selectFrom('users')
        .select('data_version')
        .where('id', '=', userId)
        .executeTakeFirstOrThrow()
    ).data_version;
  const watchlist = () =>
    ctx.db.selectFrom('watchlist').select(['user_id', 'movie_id']).orderBy('movie_id').execute();
  const plays = () =>
    ctx.db
      .selectFrom('watch_dates')
      .select(['movie_id', 'watched_at', 'plays'])
      .orderBy('movie_id')
      .execute();
  const play = (movieId: number, watchedAt = '2024-05-05') => ({
    movieId,
    watchedAt,
    plays: 1,
    comment: null,
  });

  it('marks the lists changed exactly once per write, however many operations it makes', async () => {
    const [a, b] = [await createMovie(ctx), await createMovie(ctx)];
    const bob = await createUser(ctx, { name: 'bob' });
    const before = await version();
    const bobBefore = await version(bob.user.id);
    await ctx.library.write(owner.id, async (lib) => {
      await lib.addToWatchlist([a.id]);
      await lib.addPlays([play(b.id)]);
      await lib.setRatings([{ movieId: b.id, rating: 7 }]);
      await lib.deleteDates([{ movieId: b.id }]);
    });
    expect(await version()).toBe(before + 1);
    await ctx.library.write(owner.id, async () => undefined);
    expect(await version()).toBe(before + 2);
    expect(await version(bob.user.id)).toBe(bobBefore);
  });

  it('rolls every operation of a write back when one fails, and names the unknown movie', async () => {
    const movie = await createMovie(ctx);
    const before = await version();
    const failing = ctx.library.write(owner.id, async (lib) => {
      await lib.addToWatchlist([movie.id]);
      await lib.setRatings([{ movieId: movie.id, rating: 4 }]);
      await lib.addPlays([play(movie.id), play(424_242)]);
    });
    await expect(failing).rejects.toMatchObject({ statusCode: 404, code: 'MovieNotFound' });
    await expect(failing).rejects.toThrow(/424242/);
    await expect(failing).rejects.toBeInstanceOf(AppError);
    expect(await watchlist()).toEqual([]);
    expect(await plays()).toEqual([]);
    expect(await ctx.db.selectFrom('ratings').selectAll().execute()).toEqual([]);
    expect(await version()).toBe(before);
  });

  it('checks the movies of every operation, an empty play list included', async () => {
    const movie = await createMovie(ctx);
    const operations = [
      (lib: LibraryWriter) => lib.addToWatchlist([movie.id, 9_001]),
      (lib: LibraryWriter) => lib.removeFromWatchlist([9_001]),
      (lib: LibraryWriter) => lib.deleteDates([{ movieId: 9_001 }]),
      (lib: LibraryWriter) => lib.clearRatings([9_001]),
      (lib: LibraryWriter) => lib.setRatings([{ movieId: 9_001, rating: 3 }]),
      (lib: LibraryWriter) => lib.addPlays([], [movie.id, 9_001]),
      (lib: LibraryWriter) => lib.replacePlays([play(movie.id)], [movie.id, 9_001]),
    ];
    for (const operation of operations) {
      await expect(ctx.library.write(owner.id, operation)).rejects.toThrow(/serviceId 9001/);
    }
    expect(await watchlist()).toEqual([]);
    expect(await plays()).toEqual([]);
  });

  it("takes newly watched movies off the watchlist as the owner's setting says", async () => {
    const [a, b] = [await createMovie(ctx), await createMovie(ctx)];
    await ctx.library.write(owner.id, (lib) => lib.addToWatchlist([a.id, b.id]));
    // The write reads the setting as it stands: the caller passes only whose library it is.
    await ctx.users.update('alice', { watchlistAutoRemove: false });
    await ctx.library.write(owner.id, (lib) => lib.addPlays([play(a.id)]));
    expect(await watchlist()).toHaveLength(2);
    await ctx.users.update('alice', { watchlistAutoRemove: true });
    await ctx.library.write(owner.id, (lib) => lib.replacePlays([play(b.id)]));
    expect(await watchlist()).toEqual([{ user_id: alice.user.id, movie_id: a.id }]);
  });

  it('reads the setting under its lock for writes that arrive together (one SQLite commit)', async () => {
    const [a, b, c, d] = [
      await createMovie(ctx),
      await createMovie(ctx),
      await createMovie(ctx),
      await createMovie(ctx),
    ];
    await ctx.library.write(owner.id, (lib) => lib.addToWatchlist([a.id, b.id, c.id, d.id]));
    // The first write of a turn reads the policy with its lock; the others of its commit group read it
    // when their plays need it.
    const together = (x: number, y: number) =>
      Promise.all([
        ctx.library.write(owner.id, (lib) => lib.addPlays([play(x)])),
        ctx.library.write(owner.id, (lib) => lib.addPlays([play(y)])),
      ]);
    await ctx.users.update('alice', { watchlistAutoRemove: false });
    await together(a.id, b.id);
    expect(await watchlist()).toHaveLength(4);
    await ctx.users.update('alice', { watchlistAutoRemove: true });
    await together(c.id, d.id);
    expect(await watchlist()).toEqual([
      { user_id: alice.user.id, movie_id: a.id },
      { user_id: alice.user.id, movie_id: b.id },
    ]);
  });

  it('refuses a write to the library of a user who no longer exists (404), writing nothing', async () => {
    const movie = await createMovie(ctx);
    const write = ctx.library.write(987_654, (lib) => lib.addPlays([play(movie.id)]));
    await expect(write).rejects.toMatchObject({ statusCode: 404, code: 'UserNotFound' });
    expect(await plays()).toEqual([]);
  });

  it('runs writes to one user’s library one at a time', async () => {
    const movie = await createMovie(ctx);
    const events: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const first = ctx.library.write(owner.id, async (lib) => {
      events.push('first begins');
      await lib.addToWatchlist([movie.id]);
      await gate;
      events.push('first ends');
    });
    while (!events.includes('first begins')) await new Promise((resolve) => setImmediate(resolve));
    const second = ctx.library.write(owner.id, async (lib) => {
      events.push('second begins');
      await lib.removeFromWatchlist([movie.id]);
    });
    // Time enough for the second write to start if nothing held it back.
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(events).toEqual(['first begins']);
    release();
    await Promise.all([first, second]);
    expect(events).toEqual(['first begins', 'first ends', 'second begins']);
    expect(await watchlist()).toEqual([]);
  });
});
