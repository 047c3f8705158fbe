import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { App } from '../../../shared/http.js';
import { todayOf } from '../../library/library.rules.js';
import type { HistoryEntry } from '../../library/library.service.js';
import type { RatingScale } from '../../users/users.service.js';
import { formatDay, movieHref, yearOf } from '../shell/format.js';
import { currentUser, requireSignIn } from '../shell/guards.js';
import type { Pages } from '../shell/render.js';
import { safeNext, setFlash } from '../shell/session.js';
import { movieCard, pageImageUrl, paginationView, ratingView } from '../shell/view-models.js';
import type { WebDeps } from '../web.deps.js';

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
  next: Type.Optional(Type.String({ maxLength: 1000 })),
});

const WATCHLIST_SORTS = [
  { value: 'addedAt', label: 'Date added' },
  { value: 'title', label: 'Title' },
  { value: 'releaseDate', label: 'Release date' },
  { value: 'runtime', label: 'Runtime' },
];
const RATINGS_SORTS = [
  { value: 'ratedAt', label: 'Date rated' },
  { value: 'rating', label: 'Rating' },
  { value: 'title', label: 'Title' },
  { value: 'releaseDate', label: 'Release date' },
];

const historyEntry = (entry: HistoryEntry, scale: RatingScale) => ({
  movieId: entry.movie.ids.service,
  href: movieHref(entry.movie.ids.service, entry.movie.title),
  title: entry.movie.title,
  year: yearOf(entry.movie.releaseDate),
  poster: pageImageUrl(entry.movie.posterPath),
  date: entry.watchedAt,
  day: formatDay(entry.watchedAt),
  plays: entry.plays,
  comment: entry.comment,
  rating: entry.movie.userRating === null ? null : ratingView(entry.movie.userRating, scale),
});

/** The services these pages use. */
export type ListDeps = Pick<WebDeps, 'library' | 'clock'>;

/** The signed-in user's lists: `/history` (dated entries), `/watchlist`, `/ratings`. */
export function listRoutes(app: App, { render, settings, parts }: Pages, { library, clock }: ListDeps): void {
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
          { maxPage: list.maxPage, empty: list.items.length === 0 },
          { entries: list.items.map((entry) => historyEntry(entry, user.ratingScale)), next },
        ),
      `html:${user.ratingScale}:${next}`,
    );
    const entries = parts.decode<{ maxPage: number; empty: boolean }>(bytes);
    // The whole page is kept while the entries' bytes stand (Renderer.cached).
    return render.cached(request, reply, {
      template: 'history',
      sources: [bytes],
      part: entries,
      data: () => ({
        title: 'History',
        q,
        order,
        empty: entries.meta.empty,
        pagination: paginationView(
          '/history',
          { q, order: order === 'desc' ? undefined : order },
          page,
          entries.meta.maxPage,
        ),
      }),
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
    return render(request, reply, 'watchlist', {
      title: 'Watchlist',
      q,
      sort,
      order,
      sorts: WATCHLIST_SORTS,
      facets,
      values: { genre, decade, language },
      filtered: Object.values(filter).some((value) => value !== undefined),
      cards: list.items.map((entry) => ({
        card: movieCard(entry.movie, {
          scale: user.ratingScale,
          meta: `Added ${formatDay(entry.addedAt)}`,
          rating: null,
        }),
        title: entry.movie.title,
      })),
      pagination: paginationView(
        '/watchlist',
        { q, sort, order, genre, decade, language },
        page,
        list.maxPage,
      ),
      next: here(request),
    });
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
    return render(request, reply, 'ratings', {
      title: 'Ratings',
      q,
      sort,
      order,
      sorts: RATINGS_SORTS,
      cards: list.items.map((entry) =>
        movieCard(entry.movie, {
          scale: user.ratingScale,
          meta: `Rated ${formatDay(entry.ratedAt)}`,
          rating: entry.rating,
        }),
      ),
      pagination: paginationView('/ratings', { q, sort, order }, page, list.maxPage),
    });
  });

  // "Watched it": a play today (the user's calendar) and off the watchlist, in one write.
  app.post('/watchlist/watched', { ...signedIn, schema: { body: WatchedForm } }, async (request, reply) => {
    const { user } = currentUser(request);
    const movieId = Number(request.body.movieId);
    const today = todayOf(clock.now(), user.timezone);
    await library.write(user.id, async (lib) => {
      await lib.addPlays([{ movieId, watchedAt: today, plays: 1, comment: null }]);
      await lib.removeFromWatchlist([movieId]);
    });
    setFlash(reply, `Logged a play today (${formatDay(today)}) and took it off your watchlist.`, settings);
    return reply.redirect(safeNext(request.body.next ?? '/watchlist'), 303);
  });
}
