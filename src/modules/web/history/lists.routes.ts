import type { FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import type { App } from '../../../shared/http.js';
import { type Page as ListPage, MAX_LIMIT } from '../../../shared/pagination.js';
import { MAX_TAG_LENGTH, todayOf } from '../../library/library.rules.js';
import type { DiaryEntry } from '../../library/library.service.js';
import type { User } from '../../users/users.service.js';
import { formatDay } from '../shell/format.js';
import { currentUser, requireSignIn } from '../shell/guards.js';
import type { Pages } from '../shell/render.js';
import { safeNext, setFlash } from '../shell/session.js';
import type { WebDeps } from '../web.deps.js';
import { calendarPage, type DiaryFilters, diaryHref, diaryPage, monthsOf } from './diary.page.js';
import { ratingsPage, watchlistPage } from './lists.page.js';

const PER_PAGE = 24;
const Page = Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,5}$' }));
const Search = Type.Optional(Type.String({ maxLength: 200 }));
const Order = Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')]));
/** The diary's filters as the GET form sends them: each empty or a value the diary takes. */
const DiaryWebQuery = Type.Object({
  q: Search,
  order: Type.Optional(Type.Union([Type.Literal(''), Type.Literal('asc'), Type.Literal('desc')])),
  page: Page,
  year: Type.Optional(Type.String({ pattern: '^((18[7-9]|19[0-9]|2[0-9]{2})[0-9])?$' })),
  month: Type.Optional(Type.String({ pattern: '^(0?[1-9]|1[0-2])?$' })),
  day: Type.Optional(Type.String({ pattern: '^(0?[1-9]|[12][0-9]|3[01])?$' })),
  rating: Type.Optional(Type.String({ pattern: '^(10|[1-9])?$' })),
  tag: Type.Optional(Type.String({ maxLength: MAX_TAG_LENGTH })),
  rewatch: Type.Optional(Type.Union([Type.Literal(''), Type.Literal('yes'), Type.Literal('no')])),
});
type DiaryWebQuery = Static<typeof DiaryWebQuery>;
const CalendarQuery = Type.Object({
  month: Type.Optional(Type.String({ pattern: '^((18[7-9]|19[0-9]|2[0-9]{2})[0-9]-(0[1-9]|1[0-2]))?$' })),
});
/** At most this many thousand entries a calendar month reads. */
const CALENDAR_PAGES = 10;

/** The diary's filters of a checked query; an empty field is no filter. */
function diaryFiltersOf(query: DiaryWebQuery): DiaryFilters {
  const number = (value: string | undefined) => (value ? Number(value) : undefined);
  return {
    q: query.q?.trim() || undefined,
    year: number(query.year),
    month: number(query.month),
    day: number(query.day),
    rating: number(query.rating),
    tag: query.tag?.trim() || undefined,
    rewatch: query.rewatch ? query.rewatch === 'yes' : undefined,
    order: query.order === 'asc' ? 'asc' : undefined,
  };
}
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
  { render, settings }: Pages,
  { library, movies, clock }: ListDeps,
): void {
  const signedIn = { preHandler: requireSignIn };
  const here = (request: FastifyRequest) => request.url;
  type DiaryQuery = Parameters<typeof library.list<'diary'>>[2];
  /** A page of the diary as the bytes of its objects (the page cache's, shared with `cachedList`). */
  const diaryBytes = (user: User, query: DiaryQuery) =>
    library.page('diary', user, query, (list) => JSON.stringify(list), 'objects');
  /** How many entries the diary has under `filter`: a page of one, whose number of pages it is. */
  const diaryCount = async (user: User, filter: DiaryQuery) => {
    const query = { ...filter, page: 1, limit: 1 };
    const bytes = await library.page('diary', user, query, (list) => String(list.maxPage), 'count');
    return Number(bytes.toString('utf8'));
  };

  app.get('/history', { ...signedIn, schema: { querystring: DiaryWebQuery } }, async (request, reply) => {
    const { user } = currentUser(request);
    const query = request.query;
    // The filter form sends its empty fields too: the diary's address is the one without them.
    if (Object.values(query).some((value) => value === '')) {
      const href = diaryHref(diaryFiltersOf(query));
      const page = query.page && query.page !== '1' ? `page=${query.page}` : '';
      return reply.redirect(page ? `${href}${href.includes('?') ? '&' : '?'}${page}` : href, 303);
    }
    const filters = diaryFiltersOf(query);
    const page = Number(query.page ?? '1');
    // The diary's own read (the API's GET /diary), through the page cache.
    const serviceFilter = {
      year: filters.year,
      month: filters.month,
      day: filters.day,
      rating: filters.rating,
      tag: filters.tag,
      rewatch: filters.rewatch,
      search: filters.q,
      sortOrder: filters.order,
    };
    const today = todayOf(clock.now(), user.timezone);
    // The page as the diary's bytes (the objects `cachedList` keeps, shared with it): the whole page
    // is kept while they stand (Renderer.cached); any change to the library makes them anew, and
    // with them the month counts and tags below.
    const bytes = await diaryBytes(user, { ...serviceFilter, page, limit: PER_PAGE });
    return render.cached(request, reply, {
      template: 'history',
      sources: [bytes],
      extra: today,
      data: async () => {
        const list: ListPage<DiaryEntry> = JSON.parse(bytes.toString('utf8'));
        // Each month's whole count under the filters (a month may run on over the next page).
        const [totals, tags] = await Promise.all([
          Promise.all(
            monthsOf(list.items).map(async (key) => {
              const [year, month] = key.split('-').map(Number);
              return [key, await diaryCount(user, { ...serviceFilter, year, month })] as const;
            }),
          ),
          library.tags(user),
        ]);
        return diaryPage(filters, list, {
          scale: user.ratingScale,
          totals: new Map(totals),
          tags,
          next: here(request),
          today,
        });
      },
    });
  });

  app.get(
    '/history/calendar',
    { ...signedIn, schema: { querystring: CalendarQuery } },
    async (request, reply) => {
      const { user } = currentUser(request);
      const today = todayOf(clock.now(), user.timezone);
      const month = request.query.month || today.slice(0, 7);
      const [year, number] = month.split('-').map(Number);
      // The whole month, a thousand entries a read (a month of a 100,000-play import has fewer), as
      // the diary's bytes: the whole page is kept while they stand.
      const pages: Buffer[] = [];
      const count = await diaryCount(user, { year, month: number });
      for (let page = 1; page <= Math.min(CALENDAR_PAGES, Math.ceil(count / MAX_LIMIT)); page++) {
        pages.push(await diaryBytes(user, { year, month: number, page, limit: MAX_LIMIT }));
      }
      return render.cached(request, reply, {
        template: 'history-calendar',
        sources: pages,
        extra: today,
        data: () =>
          calendarPage(
            month,
            pages.flatMap((bytes) => (JSON.parse(bytes.toString('utf8')) as ListPage<DiaryEntry>).items),
            today,
          ),
      });
    },
  );

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
    const liked = await library.likedOn(user.id, list.items);
    return render(request, reply, 'watchlist', watchlistPage(user.ratingScale, values, list, facets, liked));
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
    const liked = await library.likedOn(user.id, list.items);
    return render(
      request,
      reply,
      'ratings',
      ratingsPage(user.ratingScale, { q, sort, order, page }, list, liked),
    );
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
