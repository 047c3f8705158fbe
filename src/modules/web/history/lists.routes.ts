import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { App } from '../../../shared/http.js';
import { todayOf } from '../../library/library.rules.js';
import { formatDay } from '../shell/format.js';
import { currentUser, requireSignIn } from '../shell/guards.js';
import type { Pages } from '../shell/render.js';
import { safeNext, setFlash } from '../shell/session.js';
import type { WebDeps } from '../web.deps.js';
import { type HistoryPartMeta, historyEntries, historyPage, historyPartMeta } from './history.page.js';
import { ratingsPage, watchlistPage } from './lists.page.js';

const PER_PAGE = 24;
const Page = Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,5}$' }));
const Search = Type.Optional(Type.String({ maxLength: 200 }));
const Order = Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')]));
const HistoryQuery = Type.Object({ q: Search, order: Order, page: Page });
const WatchlistQuery = Type.Object({
  q: Search,
  genre: Type.Optional(Type.String({ pattern: '^([0-9]{1,9})?$' })),
  decade: Type.Optional(Type.String({ pattern: '^((18[7-9]|19[0-9]|20[0-9])0)?$' })),
  language: Type.Optional(Type.String({ pattern: '^([a-z]{2,3})?$' })),
  sort: Type.Optional(
    Type.Union([
      Type.Literal('addedAt'),
      Type.Literal('title'),
      Type.Literal('releaseDate'),
      Type.Literal('runtime'),
    ]),
  ),
  order: Order,
  page: Page,
});
const RatingsQuery = Type.Object({
  q: Search,
  sort: Type.Optional(
    Type.Union([
      Type.Literal('ratedAt'),
      Type.Literal('rating'),
      Type.Literal('title'),
      Type.Literal('releaseDate'),
    ]),
  ),
  order: Order,
  page: Page,
});
const WatchedForm = Type.Object({
  movieId: Type.String({ pattern: '^[1-9][0-9]{0,8}$' }),
  /** The day it was watched; absent or empty: today. */
  date: Type.Optional(Type.Union([Type.Literal(''), Type.String({ format: 'date' })])),
  next: Type.Optional(Type.String({ maxLength: 1000 })),
});

/** The services these pages use. */
export type ListDeps = Pick<WebDeps, 'library' | 'movies' | 'clock'>;

/** The signed-in user's lists: `/history` (dated entries), `/watchlist`, `/ratings`. */
export function listRoutes(
  app: App,
  { render, settings, parts }: Pages,
  { library, movies, clock }: ListDeps,
): void {
  const signedIn = { preHandler: requireSignIn };
  const here = (request: FastifyRequest) => request.url;

  app.get('/history', { ...signedIn, schema: { querystring: HistoryQuery } }, async (request, reply) => {
    const { user } = currentUser(request);
    const { q = '', order = 'desc' } = request.query;
    const page = Number(request.query.page ?? '1');
    const query = { search: q.trim() || undefined, sortOrder: order, page, limit: PER_PAGE };
    const next = here(request);
    // The entries as HTML, from the page cache beside the API's bytes of the same page: made again
    // only after a change to the list (or to the address the forms come back to).
    const bytes = await library.page(
      'history',
      user,
      query,
      (list) =>
        parts.encode(
          './_history-entries',
          historyPartMeta(list),
          historyEntries(list, user.ratingScale, next),
        ),
      `html:${user.ratingScale}:${next}`,
    );
    const entries = parts.decode<HistoryPartMeta>(bytes);
    // The whole page is kept while the entries' bytes stand (Renderer.cached).
    return render.cached(request, reply, {
      template: 'history',
      sources: [bytes],
      part: entries,
      data: () => historyPage({ q, order, page }, entries.meta),
    });
  });

  app.get('/watchlist', { ...signedIn, schema: { querystring: WatchlistQuery } }, async (request, reply) => {
    const { user } = currentUser(request);
    const { q = '', sort = 'addedAt', genre = '', decade = '', language = '' } = request.query;
    const order = request.query.order ?? (sort === 'addedAt' ? 'desc' : 'asc');
    const page = Number(request.query.page ?? '1');
    const filter = {
      search: q.trim() || undefined,
      genreId: genre ? Number(genre) : undefined,
      decade: decade ? Number(decade) : undefined,
      language: language || undefined,
    };
    const [list, facets] = await Promise.all([
      library.cachedList('watchlist', user, {
        ...filter,
        sortBy: sort,
        sortOrder: order,
        page,
        limit: PER_PAGE,
      }),
      library.facets(user, 'watchlist'),
    ]);
    const filtered = Object.values(filter).some((value) => value !== undefined);
    const today = todayOf(clock.now(), user.timezone);
    const values = { q, sort, order, genre, decade, language, page, filtered, next: here(request), today };
    return render(request, reply, 'watchlist', watchlistPage(user.ratingScale, values, list, facets));
  });

  app.get('/ratings', { ...signedIn, schema: { querystring: RatingsQuery } }, async (request, reply) => {
    const { user } = currentUser(request);
    const { q = '', sort = 'ratedAt' } = request.query;
    const order = request.query.order ?? (sort === 'title' ? 'asc' : 'desc');
    const page = Number(request.query.page ?? '1');
    const list = await library.cachedList('ratings', user, {
      search: q.trim() || undefined,
      sortBy: sort,
      sortOrder: order,
      page,
      limit: PER_PAGE,
    });
    return render(request, reply, 'ratings', ratingsPage(user.ratingScale, { q, sort, order, page }, list));
  });

  // "Watched it": a play on the day asked (today unless changed) and off the watchlist, in one write.
  app.post('/watchlist/watched', { ...signedIn, schema: { body: WatchedForm } }, async (request, reply) => {
    const { user } = currentUser(request);
    const movieId = Number(request.body.movieId);
    const day = request.body.date || todayOf(clock.now(), user.timezone);
    await library.write(user.id, async (lib) => {
      await lib.addPlays([{ movieId, watchedAt: day, plays: 1, comment: null }]);
      await lib.removeFromWatchlist([movieId]);
    });
    const title = (await movies.movieDetails(movieId))?.title ?? 'the movie';
    setFlash(reply, `Logged ${title} on ${formatDay(day)} and took it off your watchlist.`, settings);
    return reply.redirect(safeNext(request.body.next ?? '/watchlist'), 303);
  });
}
