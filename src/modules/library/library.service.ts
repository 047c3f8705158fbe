import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { inTransaction } from '../../db/transaction.js';
import type { Clock } from '../../shared/clock.js';
import { calendarDateIn, isoString } from '../../shared/dates.js';
import { badRequest } from '../../shared/errors.js';
import { DEFAULT_LIMIT, DEFAULT_PAGE, type Page, type PageRequest, pageOf } from '../../shared/pagination.js';
import type { SortOrder } from '../../shared/schemas.js';
import { toMovie } from '../movies/movies.presenter.js';
import type { Movie } from '../movies/movies.schemas.js';
import type { User } from '../users/users.service.js';
import {
  type DiaryFilter,
  type EntryRow,
  entryById,
  listDiary,
  rewatchOf,
  tagCounts,
  tagsOfEntries,
  tagsOfMovie,
} from './diary.repository.js';
import { type ExternalSource, externalIdsOf, movieOfExternalId } from './external-ids.repository.js';
import { type HistoryFilter, listHistory } from './history.repository.js';
import { mayReadList } from './library.rules.js';
import {
  type DiaryChange,
  type DiaryWrite,
  LibraryWriter,
  MAX_COMMENT_LENGTH,
  MAX_PLAYS,
} from './library.writer.js';
import { findMoviesWithRating, moviesOnList } from './library-movies.repository.js';
import { likedAtOf, listLikes } from './likes.repository.js';
import {
  findList,
  type ListPlace,
  type ListSummary,
  listMoviesPage,
  listsOf,
  listsWithMovie,
} from './lists.repository.js';
import type { MovieListFilter, MovieListQuery, MovieListSortBy } from './movie-list.repository.js';
import { entriesOfMovie, listFacets, ratingAndWatchlistOf } from './overview.repository.js';
import { ListPageCache } from './page-cache.js';
import { findWatchDatesOf, listPlayed } from './played.repository.js';
import { listRatings } from './ratings.repository.js';
import {
  cursorOfPlay,
  type LikeRecord,
  type ListRecord,
  likeRecordsAfter,
  listRecordOf,
  type PlayRecord,
  playRecordsAfter,
  type RatingRecord,
  type RecordMovie,
  ratingRecordsAfter,
  type WatchlistRecord,
  watchlistRecordsAfter,
} from './records.repository.js';
import { notePending, PlayChanges } from './statistics-aggregates.js';
import { lockAndMarkChanged } from './version.repository.js';
import { listWatchlist } from './watchlist.repository.js';

export type { ExternalSource } from './external-ids.repository.js';
export type { ListPlace, ListSummary } from './lists.repository.js';
export type { LikeRecord, ListRecord, RecordMovie, StoredMovieState } from './records.repository.js';
export type { DiaryChange, DiaryWrite, LibraryWriter, PlayRecord, RatingRecord, WatchlistRecord };
export { MAX_COMMENT_LENGTH, MAX_PLAYS };

export interface HistoryEntry {
  movie: Movie;
  watchedAt: string;
  /** The entry's plays, comment and position (the pages show them; the API's entry has none). */
  plays: number;
  comment: string | null;
  position: number;
  /** The entry's own rating (the diary's), not the movie's rating of today; null: none. */
  rating: number | null;
}

/** A diary entry: one of a user's watch dates, with its own rating, rewatch flag and tags. */
export interface DiaryEntry {
  /** The watch date's id. */
  id: number;
  movie: Movie;
  /** null: the entry of plays with an unknown date (never listed by the diary, but found by its id). */
  watchedAt: string | null;
  plays: number;
  comment: string | null;
  /** The entry's own rating; null: none. */
  rating: number | null;
  /** As the user said, or else derived: an earlier dated entry of the same movie exists. */
  rewatch: boolean;
  /** Names as first written, in the order of their case-folded keys. */
  tags: string[];
  position: number;
}

export interface WatchedDate {
  date: string | null;
  plays: number;
  comment: string | null;
}

export interface PlayedEntry {
  movie: Movie;
  watchedDates: WatchedDate[];
}

export interface WatchlistEntry {
  movie: Movie;
  addedAt: string;
}

export interface RatingEntry {
  movie: Movie;
  rating: number;
  ratedAt: string;
}

export interface LikeEntry {
  movie: Movie;
  /** The day the movie was first liked, in the owner's time zone. */
  likedAt: string;
}

export interface ListMovieEntry {
  movie: Movie;
  /** 1..n without gaps. */
  position: number;
  note: string | null;
  /** The day the movie was put on the list, in the owner's time zone. */
  addedAt: string;
}

/** A list with one page of its movies, in position order. */
export interface ListWithMovies extends ListSummary {
  movies: Page<ListMovieEntry>;
}

export type RatingsSortBy = 'ratedAt' | 'rating' | 'title' | 'releaseDate';

interface Paging {
  page?: number | undefined;
  limit?: number | undefined;
}
interface Filtered {
  search?: string | undefined;
  sortOrder?: SortOrder | undefined;
}

/** What each list takes (anything absent gets its default, LIST_DEFAULTS) and what it lists. */
export interface Lists {
  history: { query: Paging & Filtered; entry: HistoryEntry };
  diary: { query: Paging & DiaryFilter; entry: DiaryEntry };
  played: {
    query: Paging & Filtered & MovieListFilter & { sortBy?: MovieListSortBy | undefined };
    entry: PlayedEntry;
  };
  watchlist: {
    query: Paging & Filtered & MovieListFilter & { sortBy?: Exclude<MovieListSortBy, 'plays'> | undefined };
    entry: WatchlistEntry;
  };
  ratings: {
    query: Paging & Filtered & MovieListFilter & { sortBy?: RatingsSortBy | undefined };
    entry: RatingEntry;
  };
  likes: { query: Paging; entry: LikeEntry };
}
export type ListName = keyof Lists;

/** The order each list has unless asked otherwise; the API's schemas document the same defaults. */
export const LIST_DEFAULTS = {
  history: { sortOrder: 'desc' },
  /** Newest first (the API's only order; the web diary may ask for oldest first). */
  diary: { sortOrder: 'desc' },
  played: { sortBy: 'title', sortOrder: 'asc' },
  watchlist: { sortBy: 'addedAt', sortOrder: 'desc' },
  ratings: { sortBy: 'ratedAt', sortOrder: 'desc' },
  likes: { sortOrder: 'desc' },
} as const satisfies Record<ListName, { sortBy?: string; sortOrder: SortOrder }>;

/** Everything a user keeps of one movie: their entries, their rating, their watchlist entry. */
export interface MovieState {
  /** Newest date first, the unknown date (null) last. */
  entries: { watchedAt: string | null; plays: number; comment: string | null; position: number }[];
  rating: number | null;
  /** The day the rating was last set, in the user's time zone. */
  ratedAt: string | null;
  /** The day it was put on the watchlist (user's time zone); null when it is not on it. */
  watchlistedAt: string | null;
  /** The day the movie was first liked (user's time zone); null when it is not liked. */
  likedAt: string | null;
}

/** What the movies of a list can be narrowed by, each value with how many movies have it. */
export interface ListFacets {
  genres: { id: number; name: string; count: number }[];
  languages: { code: string; count: number }[];
  decades: { decade: number; count: number }[];
}

/** What the lists mark about movies shown elsewhere (search results). */
export interface MovieMarks {
  watched: Set<number>;
  watchlisted: Set<number>;
}

/**
 * What a user keeps: watch dates, the watchlist and ratings. Every change goes through `write`; every
 * list is read through `list` (objects) or `page` (bytes, from the page cache).
 */
export interface Library {
  /**
   * The one way to change a user's library: one transaction that holds the owner's lock (PostgreSQL:
   * their row; SQLite's writer is one at a time anyway) and marks their lists changed exactly once,
   * whatever `work` does with the operations it is given; at its end, the entries it changed are
   * noted for the statistics (`notePending`). An error anywhere rolls all of it back. The owner's
   * policy (time zone, watchlist auto-remove) is read under that lock: callers pass only whose
   * library it is.
   */
  write<T>(userId: number, work: (library: LibraryWriter) => Promise<T>): Promise<T>;
  list<L extends ListName>(list: L, owner: User, query: Lists[L]['query']): Promise<Page<Lists[L]['entry']>>;
  /**
   * `list` through the page cache: the pages' read (a page kept as JSON, read back as objects), so a
   * web page costs what the API's cached page costs, and changes with it.
   */
  cachedList<L extends ListName>(
    list: L,
    owner: User,
    query: Lists[L]['query'],
  ): Promise<Page<Lists[L]['entry']>>;
  /**
   * A list page as bytes (`format` serialises it: the API's JSON), from the page cache while nothing
   * the page shows has changed.
   */
  page<L extends ListName>(
    list: L,
    owner: User,
    query: Lists[L]['query'],
    format: (page: Page<Lists[L]['entry']>) => string,
    /** Another form of the same page (the web app's HTML): kept apart from the API's bytes. */
    variant?: string,
  ): Promise<Buffer>;
  /** One of the owner's diary entries by its id (any of their watch dates); undefined when none. */
  diaryEntry(owner: User, id: number): Promise<DiaryEntry | undefined>;
  /** The owner's tags with how many entries have each, most used first, then by name. */
  tags(owner: User): Promise<{ name: string; count: number }[]>;
  /** Of `movieIds`, those the user has watched and those on their watchlist. */
  marks(userId: number, movieIds: readonly number[]): Promise<MovieMarks>;
  /** What the user keeps of one movie (the movie page). */
  movieState(owner: User, movieId: number): Promise<MovieState>;
  /** The genres, languages and decades of the movies the user played or keeps on the watchlist (the grids' filters). */
  facets(owner: User, list: 'played' | 'watchlist'): Promise<ListFacets>;
  /** The same as JSON bytes, from the page cache while the list and the movies' data stand. */
  facetsBytes(owner: User, list: 'played' | 'watchlist'): Promise<Buffer>;
  /**
   * Everything of one kind the user keeps, page after page of `size` (exports): plays (undated first,
   * then the history's order), watchlist entries (in the order added), ratings (by movie). Keyset
   * paging outside any transaction: memory stays flat and writes never wait for an export.
   */
  records(owner: User, kind: 'plays', size?: number): AsyncGenerator<PlayRecord[]>;
  records(owner: User, kind: 'watchlist', size?: number): AsyncGenerator<WatchlistRecord[]>;
  records(owner: User, kind: 'ratings', size?: number): AsyncGenerator<RatingRecord[]>;
  /**
   * The owner's lists that `readerId` may read (null: no one signed in; library.rules.ts `mayReadList`),
   * the most recently changed first.
   */
  lists(owner: User, readerId: number | null): Promise<ListSummary[]>;
  /**
   * One of the owner's lists with a page of its movies, in position order; undefined when the owner has
   * no list of that id or `readerId` may not read it (the two are told apart by nobody).
   */
  listWithMovies(
    owner: User,
    listId: number,
    readerId: number | null,
    paging: Paging,
  ): Promise<ListWithMovies | undefined>;
  /** The movie the user's own imports gave this Trakt id or Letterboxd slug; undefined when none did. */
  movieOfExternalId(owner: User, source: ExternalSource, externalId: string): Promise<number | undefined>;

  // ---- moviesearch (issue 30: the movie page's lists and tags, the cards' hearts) ----
  /**
   * Where the owner keeps one movie besides its entries (the movie page): their own lists that hold it,
   * with its place on each (the most recently changed list first), and the tags of its entries.
   */
  movieLists(owner: User, movieId: number): Promise<{ lists: ListPlace[]; tags: string[] }>;
  /** Of `movieIds`, those the user likes: one query, whatever the number of ids (the cards' hearts). */
  likedAmong(userId: number, movieIds: readonly number[]): Promise<Set<number>>;
  /** Of a page's entries (any list's, a list's movies), the movies the user likes: the cards' hearts. */
  likedOn(userId: number, entries: readonly { movie: { ids: { service: number } } }[]): Promise<Set<number>>;

  // io30: the likes and lists of an export.
  /** The owner's likes, page after page of `size`, by movie (exports). */
  likeRecords(owner: User, size?: number): AsyncGenerator<LikeRecord[]>;
  /** One of the owner's lists with all its movies in position order (exports); undefined: none of that id. */
  listRecord(owner: User, listId: number): Promise<ListRecord | undefined>;
}

const RECORDS_PAGE = 1000;

export function createLibrary(deps: { db: Kysely<Database>; clock: Clock; imageBaseUrl: string }): Library {
  const { db, clock, imageBaseUrl } = deps;
  const cache = new ListPageCache(db);

  /** The records' movies given the Trakt ids and Letterboxd slugs the owner's own imports gave them. */
  const withOwnIdsOf = async <R extends { movie: RecordMovie }>(owner: User, records: R[]) => {
    const own = await externalIdsOf(
      db,
      owner.id,
      records.map((record) => record.movie.serviceId),
    );
    for (const record of records) {
      const ids = own.get(record.movie.serviceId);
      if (ids?.trakt !== undefined) record.movie.traktId = Number(ids.trakt);
      if (ids?.letterboxd !== undefined) record.movie.letterboxdId = ids.letterboxd;
    }
    return records;
  };

  const moviesOf = async (owner: User, movieIds: readonly number[]) => {
    const rows = await findMoviesWithRating(db, movieIds, owner.id);
    return (id: number) => toMovie(rows.get(id)!, imageBaseUrl);
  };

  const readers: {
    [L in ListName]: (owner: User, query: Normalised[L]) => Promise<Page<Lists[L]['entry']>>;
  } = {
    async history(owner, query) {
      const { rows, total } = await listHistory(db, owner.id, query, query);
      const movie = await moviesOf(
        owner,
        rows.map((r) => r.movie_id),
      );
      return pageOf(
        rows.map((row) => ({
          movie: movie(row.movie_id),
          watchedAt: row.watched_at,
          plays: row.plays,
          comment: row.comment,
          position: row.position,
          rating: row.rating,
        })),
        total,
        query,
      );
    },

    async diary(owner, query) {
      if (query.month !== undefined && query.year === undefined) {
        throw badRequest('InvalidQueryParameter', 'month needs a year: ?year=2025&month=1');
      }
      if (query.day !== undefined && query.month === undefined) {
        throw badRequest('InvalidQueryParameter', 'day needs a month: ?year=2025&month=1&day=31');
      }
      const { rows, total } = await listDiary(db, owner.id, query, query);
      return pageOf(await diaryEntries(owner, rows), total, query);
    },

    async played(owner, query) {
      const { movieIds, total } = await listPlayed(db, owner.id, query);
      const [movie, watchDates] = await Promise.all([
        moviesOf(owner, movieIds),
        findWatchDatesOf(db, owner.id, movieIds),
      ]);
      const datesByMovie = new Map<number, WatchedDate[]>(movieIds.map((id) => [id, []]));
      for (const row of watchDates) {
        datesByMovie
          .get(row.movie_id)
          ?.push({ date: row.watched_at, plays: row.plays, comment: row.comment });
      }
      const items = movieIds.map((id) => ({ movie: movie(id), watchedDates: datesByMovie.get(id)! }));
      return pageOf(items, total, query);
    },

    async watchlist(owner, query) {
      const { rows, total } = await listWatchlist(db, owner.id, query);
      const movie = await moviesOf(
        owner,
        rows.map((r) => r.movie_id),
      );
      const items = rows.map((row) => ({
        movie: movie(row.movie_id),
        addedAt: calendarDateIn(new Date(row.added_at), owner.timezone),
      }));
      return pageOf(items, total, query);
    },

    async ratings(owner, query) {
      const { sortBy, ...rest } = query;
      const { rows, total } = await listRatings(db, owner.id, {
        ...rest,
        sortBy: sortBy === 'ratedAt' ? 'addedAt' : sortBy,
      });
      const movie = await moviesOf(
        owner,
        rows.map((r) => r.movie_id),
      );
      const items = rows.map((row) => ({
        movie: movie(row.movie_id),
        rating: row.rating,
        ratedAt: calendarDateIn(new Date(row.updated_at), owner.timezone),
      }));
      return pageOf(items, total, query);
    },

    async likes(owner, query) {
      const { rows, total } = await listLikes(db, owner.id, query);
      const movie = await moviesOf(
        owner,
        rows.map((r) => r.movie_id),
      );
      const items = rows.map((row) => ({
        movie: movie(row.movie_id),
        likedAt: calendarDateIn(new Date(row.liked_at), owner.timezone),
      }));
      return pageOf(items, total, query);
    },
  };

  /** Entries as the diary shows them: each with its movie and its tags. */
  const diaryEntries = async (owner: User, rows: readonly (EntryRow & { derived_rewatch: number })[]) => {
    const [movie, tags] = await Promise.all([
      moviesOf(
        owner,
        rows.map((r) => r.movie_id),
      ),
      tagsOfEntries(
        db,
        rows.map((r) => r.id),
      ),
    ]);
    return rows.map((row) => ({
      id: row.id,
      movie: movie(row.movie_id),
      watchedAt: row.watched_at,
      plays: Number(row.plays),
      comment: row.comment,
      rating: row.rating,
      rewatch: Number(row.derived_rewatch) === 1,
      tags: tags.get(row.id) ?? [],
      position: Number(row.position),
    }));
  };
  // Kept with the list pages (the owner's data version moves with every change to a list); who may
  // read them is asked of every request, on the owner as it stands (privacy, public profile).
  // Read once per kept page: the same array while the bytes stand (a page made from it can be kept
  // whole: Renderer.cached keys on its sources' identity). Nobody changes it.
  const parsedAll = new WeakMap<Buffer, ListSummary[]>();
  const allLists = async (owner: User): Promise<ListSummary[]> => {
    const bytes = await cache.bytes({ list: 'lists', owner, query: {} }, async () =>
      JSON.stringify(await listsOf(db, owner.id)),
    );
    let lists = parsedAll.get(bytes);
    if (lists === undefined) {
      lists = JSON.parse(bytes.toString('utf8')) as ListSummary[];
      parsedAll.set(bytes, lists);
    }
    return lists;
  };

  // Three groupings of the user's movies (23 ms at 4,000 movies): kept with the list pages.
  const facetsBytes = (owner: User, list: 'played' | 'watchlist') =>
    cache.bytes({ list: `facets:${list}`, owner, query: {} }, async () =>
      JSON.stringify(await listFacets(db, owner.id, list)),
    );

  const parsedLists = new WeakMap<Buffer, ListWithMovies | null>();

  const list = <L extends ListName>(name: L, owner: User, query: Lists[L]['query']) =>
    readers[name](owner, normalised(name, query)) as Promise<Page<Lists[L]['entry']>>;

  return {
    async write(userId, work) {
      return inTransaction(db, async (trx) => {
        const policy = await lockAndMarkChanged(trx, userId);
        const changes = new PlayChanges();
        const now = isoString(clock.now().getTime());
        const done = await work(new LibraryWriter(trx, userId, policy, now, changes));
        await notePending(trx, userId, now, changes);
        return done;
      });
    },

    list,

    async cachedList(name, owner, query) {
      const full = normalised(name, query);
      const bytes = await cache.bytes({ list: `${name}:objects`, owner, query: full }, async () =>
        JSON.stringify(await list(name, owner, full)),
      );
      return JSON.parse(bytes.toString('utf8'));
    },

    page: (name, owner, query, format, variant) => {
      const full = normalised(name, query);
      return cache.bytes({ list: variant ? `${name}:${variant}` : name, owner, query: full }, async () =>
        format(await list(name, owner, full)),
      );
    },

    async movieState(owner, movieId) {
      const [entries, { rating, watchlist }, likedAt] = await Promise.all([
        entriesOfMovie(db, owner.id, movieId),
        ratingAndWatchlistOf(db, owner.id, movieId),
        likedAtOf(db, owner.id, movieId),
      ]);
      return {
        entries: entries.map((entry) => ({
          watchedAt: entry.watched_at,
          plays: entry.plays,
          comment: entry.comment,
          position: entry.position,
        })),
        rating: rating?.rating ?? null,
        ratedAt: rating ? calendarDateIn(new Date(rating.updated_at), owner.timezone) : null,
        watchlistedAt: watchlist ? calendarDateIn(new Date(watchlist.added_at), owner.timezone) : null,
        likedAt: likedAt ? calendarDateIn(new Date(likedAt), owner.timezone) : null,
      };
    },

    facetsBytes,

    async diaryEntry(owner, id) {
      const row = await entryById(db, owner.id, id);
      if (row === undefined) return undefined;
      const rewatch = await rewatchOf(db, owner.id, id);
      const [entry] = await diaryEntries(owner, [{ ...row, derived_rewatch: rewatch ? 1 : 0 }]);
      return entry;
    },

    async tags(owner) {
      const bytes = await cache.bytes({ list: 'tags', owner, query: {} }, async () =>
        JSON.stringify(await tagCounts(db, owner.id)),
      );
      return JSON.parse(bytes.toString('utf8'));
    },

    async facets(owner, list) {
      return JSON.parse((await facetsBytes(owner, list)).toString('utf8'));
    },

    records: ((owner: User, kind: 'plays' | 'watchlist' | 'ratings', size = RECORDS_PAGE) => {
      // A movie's Trakt id and Letterboxd slug are the ones the user's own imports gave it, else the
      // catalogue's: an export gives back what the user brought in.
      const withOwnIds = <R extends { movie: RecordMovie }>(next: (last: R | undefined) => Promise<R[]>) =>
        pages(async (last: R | undefined) => withOwnIdsOf(owner, await next(last)));
      return kind === 'plays'
        ? withOwnIds((last: PlayRecord | undefined) =>
            playRecordsAfter(db, owner.id, last ? cursorOfPlay(last) : null, size),
          )
        : kind === 'watchlist'
          ? withOwnIds((last: WatchlistRecord | undefined) =>
              watchlistRecordsAfter(db, owner.id, last?.id ?? 0, size),
            )
          : withOwnIds((last: RatingRecord | undefined) =>
              ratingRecordsAfter(db, owner.id, last?.movie.serviceId ?? 0, size),
            );
    }) as Library['records'],

    async lists(owner, readerId) {
      const all = await allLists(owner);
      const readable = all.filter((list) => mayReadList(owner, list.visibility, readerId));
      // All of them (the owner's own): the kept array itself, the same while nothing changed.
      return readable.length === all.length ? all : readable;
    },

    async listWithMovies(owner, listId, readerId, paging) {
      const query = { page: paging.page ?? DEFAULT_PAGE, limit: paging.limit ?? DEFAULT_LIMIT };
      const bytes = await cache.bytes({ list: `list:${listId}`, owner, query }, async () => {
        const list = await findList(db, owner.id, listId);
        if (!list) return 'null';
        const { rows, total } = await listMoviesPage(db, listId, query);
        const movie = await moviesOf(
          owner,
          rows.map((r) => r.movie_id),
        );
        const items = rows.map((row) => ({
          movie: movie(row.movie_id),
          position: row.position,
          note: row.note,
          addedAt: calendarDateIn(new Date(row.added_at), owner.timezone),
        }));
        return JSON.stringify({ ...list, movies: pageOf(items, total, query) });
      });
      // Read once per kept page: the same object while the bytes stand, so that a page made from it can
      // be kept whole (Renderer.cached keys on its sources' identity). Nobody changes it.
      let found = parsedLists.get(bytes);
      if (found === undefined) {
        found = JSON.parse(bytes.toString('utf8')) as ListWithMovies | null;
        parsedLists.set(bytes, found);
      }
      return found && mayReadList(owner, found.visibility, readerId) ? found : undefined;
    },

    movieOfExternalId: (owner, source, externalId) => movieOfExternalId(db, owner.id, source, externalId),

    async marks(userId, movieIds) {
      const [watched, watchlisted] = await Promise.all([
        moviesOnList(db, 'watch_dates', userId, movieIds),
        moviesOnList(db, 'watchlist', userId, movieIds),
      ]);
      return { watched, watchlisted };
    },

    // ---- moviesearch (issue 30: the movie page's lists and tags, the cards' hearts) ----
    async movieLists(owner, movieId) {
      const [lists, tags] = await Promise.all([
        listsWithMovie(db, owner.id, movieId),
        tagsOfMovie(db, owner.id, movieId),
      ]);
      return { lists, tags };
    },

    likedAmong: (userId, movieIds) => moviesOnList(db, 'likes', userId, movieIds),
    likedOn: (userId, entries) =>
      moviesOnList(
        db,
        'likes',
        userId,
        entries.map((entry) => entry.movie.ids.service),
      ),

    // io30: the likes and lists of an export.
    likeRecords(owner, size = RECORDS_PAGE) {
      return pages(async (last: LikeRecord | undefined) =>
        withOwnIdsOf(owner, await likeRecordsAfter(db, owner.id, last?.movie.serviceId ?? 0, size)),
      );
    },

    async listRecord(owner, listId) {
      const list = await listRecordOf(db, owner.id, listId);
      if (list) await withOwnIdsOf(owner, list.movies);
      return list;
    },
  };
}

/** Pages from `next(last record of the previous page)` until an empty one. */
async function* pages<T>(next: (last: T | undefined) => Promise<T[]>): AsyncGenerator<T[]> {
  let last: T | undefined;
  for (;;) {
    const page = await next(last);
    if (page.length === 0) return;
    yield page;
    last = page.at(-1);
  }
}

/** Each list's query with every default filled in. */
interface Normalised {
  history: HistoryFilter & PageRequest;
  diary: DiaryFilter & PageRequest;
  played: MovieListQuery & PageRequest;
  watchlist: MovieListQuery & PageRequest;
  ratings: Omit<MovieListQuery, 'sortBy'> & { sortBy: RatingsSortBy } & PageRequest;
  likes: PageRequest;
}

function normalised<L extends ListName>(list: L, query: Lists[L]['query']): Normalised[L] {
  const defined = Object.fromEntries(Object.entries(query).filter(([, value]) => value !== undefined));
  return { page: DEFAULT_PAGE, limit: DEFAULT_LIMIT, ...LIST_DEFAULTS[list], ...defined } as Normalised[L];
}
