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

// List pages are cached. Every kind of write must show on the next read of every list it changes:
// each step below warms the cache of all four lists, writes, and expects each list to read exactly as
// an instance with a cold cache reads it (and, where the write changes the list, differently from before).
const LISTS = ['history', 'played', 'watchlist', 'ratings'] as const;
type List = (typeof LISTS)[number];

describe('list page cache', () => {
  let ctx: TestContext;
  let alice: TestUser;
  let movie: { id: number; tmdbId: number };
  let other: { id: number; tmdbId: number };
  beforeEach(async () => {
    ctx = await setupTestApp();
    alice = await createUser(ctx);
    movie = await createMovie(ctx);
    other = await createMovie(ctx);
  });
  afterEach(async () => {
    await ctx.close();
  });

  const read = async (list: List, app = ctx.app) => {
    const response = await app.inject({
      method: 'GET',
      url: `/api/users/${alice.user.name}/${list}/movies`,
      headers: alice.auth,
    });
    expect(response.statusCode).toBe(200);
    return response.body;
  };
  const readAll = async (app = ctx.app) =>
    Object.fromEntries(await Promise.all(LISTS.map(async (list) => [list, await read(list, app)])));
  const api = async (method: 'POST' | 'PUT' | 'DELETE', list: List, payload: unknown) => {
    const response = await ctx.app.inject({
      method,
      url: `/api/users/${alice.user.name}/${list}/movies`,
      headers: alice.auth,
      payload: payload as object,
    });
    expect(response.statusCode, `${method} ${list}`).toBe(204);
  };
  const plexWebhook = async () => {
    const webhooks = createWebhooksService({ db: ctx.db, clock: ctx.clock, appUrl: 'http://x' });
    return new URL((await webhooks.create(alice.user.id, 'plex', { scrobbleRatings: true })).url).pathname;
  };
  const plex = async (url: string, event: Record<string, unknown>) => {
    const payload = {
      user: true,
      Account: { title: 'a' },
      Metadata: {
        type: 'movie',
        title: 'x',
        Guid: [{ id: `tmdb://${movie.tmdbId}` }],
        lastViewedAt: Math.floor(ctx.clock.now().getTime() / 1000),
      },
      ...event,
    };
    const response = await ctx.app.inject({
      method: 'POST',
      url,
      payload: `payload=${encodeURIComponent(JSON.stringify(payload))}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(response.json().outcome).toBe('counted');
  };

  it('shows every kind of write on the next read of every list it changes', async () => {
    const url = await plexWebhook();
    const steps: { name: string; changes: List[]; write: () => Promise<unknown> }[] = [
      {
        name: 'watchlist add',
        changes: ['watchlist'],
        write: () => api('POST', 'watchlist', [{ serviceId: movie.id }, { serviceId: other.id }]),
      },
      {
        name: 'history add (the movie leaves the watchlist)',
        changes: ['history', 'played', 'watchlist'],
        write: () => api('POST', 'history', [{ serviceId: movie.id, watchedAt: '2024-01-01' }]),
      },
      {
        name: 'history replace',
        changes: ['played'],
        write: () =>
          api('PUT', 'history', [{ serviceId: movie.id, watchedAt: '2024-01-01', plays: 3, comment: 'x' }]),
      },
      {
        name: 'played add on the unknown date',
        changes: ['played'],
        write: () => api('POST', 'played', [{ serviceId: movie.id, watchDates: [{ watchedAt: null }] }]),
      },
      {
        name: 'played replace',
        changes: ['played'],
        write: () =>
          api('PUT', 'played', [{ serviceId: movie.id, watchDates: [{ watchedAt: null, plays: 5 }] }]),
      },
      {
        name: 'played delete of one date',
        changes: ['played'],
        write: () => api('DELETE', 'played', [{ serviceId: movie.id, watchDates: [null] }]),
      },
      {
        name: 'rating set (userRating of the movie in every list)',
        changes: ['history', 'played', 'ratings'],
        write: () => api('PUT', 'ratings', [{ serviceId: movie.id, rating: 6 }]),
      },
      {
        name: 'rating of a watchlisted movie',
        changes: ['watchlist', 'ratings'],
        write: () => api('PUT', 'ratings', [{ serviceId: other.id, rating: 9 }]),
      },
      {
        name: 'rating deleted',
        changes: ['watchlist', 'ratings'],
        write: () => api('DELETE', 'ratings', [{ serviceId: other.id }]),
      },
      {
        name: 'Plex rating scrobble',
        changes: ['history', 'played', 'ratings'],
        write: () => plex(url, { event: 'media.rate', rating: 8 }),
      },
      {
        name: 'Plex watch scrobble',
        changes: ['history', 'played'],
        write: () => plex(url, { event: 'media.scrobble' }),
      },
      {
        name: 'time zone change (the days of watchlist and ratings)',
        changes: ['watchlist', 'ratings'],
        write: async () => {
          ctx.clock.set('2024-06-16T23:30:00.000Z');
          await api('POST', 'watchlist', [{ serviceId: movie.id }]);
          await api('PUT', 'ratings', [{ serviceId: other.id, rating: 2 }]);
          await readAll();
          await ctx.users.update(alice.user.name, { timezone: 'Asia/Tokyo' });
        },
      },
      {
        name: 'movie refreshed in the catalogue',
        changes: ['history', 'played', 'watchlist', 'ratings'],
        write: () => {
          ctx.clock.advance(1000);
          return ctx.db
            .updateTable('movies')
            .set({ title: 'Refreshed Title', updated_at: ctx.clock.now().toISOString() })
            .where('id', '=', movie.id)
            .execute();
        },
      },
      {
        name: 'history delete of every date',
        changes: ['history', 'played'],
        write: () => api('DELETE', 'history', [{ serviceId: movie.id }]),
      },
      {
        name: 'watchlist remove',
        changes: ['watchlist'],
        write: () => api('DELETE', 'watchlist', [{ serviceId: movie.id }, { serviceId: other.id }]),
      },
    ];
    for (const step of steps) {
      const before = await readAll();
      // Read twice: the second read is served from the cache.
      expect(await readAll(), step.name).toEqual(before);
      await step.write();
      const after = await readAll();
      const cold = await secondInstance(ctx);
      try {
        expect(after, step.name).toEqual(await readAll(cold.app));
      } finally {
        await cold.close();
      }
      for (const list of LISTS) {
        const changed = after[list] !== before[list];
        expect(changed, `${step.name}: ${list} ${changed ? 'changed' : 'did not change'}`).toBe(
          step.changes.includes(list),
        );
      }
    }
  });

  it('never serves a page cached by one instance after another instance wrote', async () => {
    const second = await secondInstance(ctx);
    try {
      const before = await read('history');
      const res = await second.app.inject({
        method: 'POST',
        url: `/api/users/${alice.user.name}/history/movies`,
        headers: alice.auth,
        payload: [{ serviceId: movie.id, watchedAt: '2024-03-03' }],
      });
      expect(res.statusCode).toBe(204);
      const after = await read('history');
      expect(after).not.toBe(before);
      expect(JSON.parse(after).watchlist).toHaveLength(1);
    } finally {
      await second.close();
    }
  });
});
