import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createMovie,
  createUser,
  secondInstance,
  setupTestApp,
  type TestContext,
  type TestUser,
} from '../../../test/harness.js';
import { createWebhooksService } from '../scrobble/webhooks.service.js';

// Pages are cached; every write that changes what a page shows must show on the next read.
describe('list page cache', () => {
  let ctx: TestContext;
  let alice: TestUser;
  let movie: { id: number; tmdbId: number };
  beforeEach(async () => {
    ctx = await setupTestApp();
    alice = await createUser(ctx);
    movie = await createMovie(ctx);
  });
  afterEach(async () => {
    await ctx.close();
  });

  const get = async (list: string, app = ctx.app) =>
    (
      await app.inject({
        method: 'GET',
        url: `/api/users/${alice.user.name}/${list}/movies`,
        headers: alice.auth,
      })
    ).json();
  const write = (method: 'POST' | 'PUT' | 'DELETE', list: string, payload: unknown) =>
    ctx.app.inject({
      method,
      url: `/api/users/${alice.user.name}/${list}/movies`,
      headers: alice.auth,
      payload: payload as object,
    });

  it('shows every kind of write on the next read of each list', async () => {
    expect((await get('history')).watchlist).toEqual([]);
    expect((await get('played')).played).toEqual([]);
    expect((await get('watchlist')).watchlist).toEqual([]);

    await write('POST', 'watchlist', [{ serviceId: movie.id }]);
    expect((await get('watchlist')).watchlist).toHaveLength(1);

    await write('POST', 'history', [{ serviceId: movie.id, watchedAt: '2024-01-01' }]);
    expect((await get('history')).watchlist.map((e: { watchedAt: string }) => e.watchedAt)).toEqual([
      '2024-01-01',
    ]);
    expect((await get('watchlist')).watchlist).toEqual([]);
    expect((await get('played')).played[0].watchedDates).toEqual([
      { date: '2024-01-01', plays: 1, comment: null },
    ]);

    await write('PUT', 'played', [
      { serviceId: movie.id, watchDates: [{ watchedAt: '2024-01-01', plays: 4, comment: 'x' }] },
    ]);
    expect((await get('played')).played[0].watchedDates).toEqual([
      { date: '2024-01-01', plays: 4, comment: 'x' },
    ]);

    await write('DELETE', 'history', [{ serviceId: movie.id }]);
    expect((await get('history')).watchlist).toEqual([]);
    expect((await get('played')).played).toEqual([]);

    await write('POST', 'watchlist', [{ serviceId: movie.id }]);
    const before = (await get('watchlist')).watchlist[0].addedAt;
    ctx.clock.set('2024-06-15T23:30:00.000Z');
    await write('DELETE', 'watchlist', [{ serviceId: movie.id }]);
    await write('POST', 'watchlist', [{ serviceId: movie.id }]);
    expect((await get('watchlist')).watchlist[0].addedAt).toBe(before);
    await ctx.users.update(alice.user.name, { timezone: 'Asia/Tokyo' });
    expect((await get('watchlist')).watchlist[0].addedAt).toBe('2024-06-16');
  });

  it('shows a rating set by a scrobble and a movie refreshed in the catalogue', async () => {
    await write('POST', 'watchlist', [{ serviceId: movie.id }]);
    expect((await get('watchlist')).watchlist[0].movie).toMatchObject({
      userRating: null,
      title: expect.any(String),
    });
    const webhooks = createWebhooksService({ db: ctx.db, clock: ctx.clock, appUrl: 'http://x' });
    const url = new URL((await webhooks.create(alice.user.id, 'plex', { scrobbleRatings: true })).url)
      .pathname;
    const payload = {
      event: 'media.rate',
      user: true,
      rating: 7,
      Account: { title: 'a' },
      Metadata: { type: 'movie', title: 'x', Guid: [{ id: `tmdb://${movie.tmdbId}` }] },
    };
    const rated = await ctx.app.inject({
      method: 'POST',
      url,
      payload: `payload=${encodeURIComponent(JSON.stringify(payload))}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(rated.json().outcome).toBe('counted');
    expect((await get('watchlist')).watchlist[0].movie.userRating).toBe(7);

    ctx.clock.advance(1000);
    await ctx.db
      .updateTable('movies')
      .set({ title: 'Refreshed Title', updated_at: ctx.clock.now().toISOString() })
      .where('id', '=', movie.id)
      .execute();
    expect((await get('watchlist')).watchlist[0].movie.title).toBe('Refreshed Title');
  });

  it('never serves a page cached by one instance after another instance wrote', async () => {
    const second = await secondInstance(ctx);
    try {
      expect((await get('history')).watchlist).toEqual([]);
      const res = await second.app.inject({
        method: 'POST',
        url: `/api/users/${alice.user.name}/history/movies`,
        headers: alice.auth,
        payload: [{ serviceId: movie.id, watchedAt: '2024-03-03' }],
      });
      expect(res.statusCode).toBe(204);
      expect((await get('history')).watchlist).toHaveLength(1);
    } finally {
      await second.close();
    }
  });
});
