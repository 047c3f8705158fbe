import { type Kysely, sql } from 'kysely';
import type { Database } from '../../db/schema.js';
import { nextTurn } from '../../shared/turns.js';
import { tagsOfEntries } from './diary.repository.js';
import type { ListVisibility } from './library.rules.js';

type Db = Kysely<Database>;

// Everything of a user's library, for imports (what is there already) and exports (all of it, paged).

/** At most this many ids in one `in (...)` list (SQLite binds at most 32766 parameters). */
const CHUNK = 1000;
/** Entries read at once. */
const ENTRIES_PAGE = 20_000;

/** What a user keeps of one movie, as an import compares it with a file. */
export interface StoredMovieState {
  /** Keyed by date, `null` the unknown date. */
  entries: Map<string | null, StoredEntry>;
  onWatchlist: boolean;
  /** Liked (a heart). */
  liked: boolean;
  rating: number | null;
  /** The Trakt id and Letterboxd slug the user's imports gave the movie. */
  ownIds: { trakt?: string; letterboxd?: string };
}

/** A stored diary entry as an import compares it: its plays and comment, own rating, rewatch flag, tags. */
export interface StoredEntry {
  plays: number;
  comment: string | null;
  rating: number | null;
  /** The flag as stored: null derived. */
  rewatch: boolean | null;
  /** Its tags' keys (case-folded). */
  tagKeys: Set<string>;
}

/** The user's entries, watchlist and ratings of these movies (a movie with none of them is left out). */
export async function storedStateOf(
  db: Db,
  userId: number,
  movieIds: readonly number[],
): Promise<Map<number, StoredMovieState>> {
  const states = new Map<number, StoredMovieState>();
  const stateOf = (movieId: number) => {
    let state = states.get(movieId);
    if (!state) {
      state = { entries: new Map(), onWatchlist: false, liked: false, rating: null, ownIds: {} };
      states.set(movieId, state);
    }
    return state;
  };
  const unique = [...new Set(movieIds)];
  for (let i = 0; i < unique.length; i += CHUNK) {
    const ids = unique.slice(i, i + CHUNK);
    const [watchlist, ratings, ownIds, likes, tags] = await Promise.all([
      db
        .selectFrom('watchlist')
        .select('movie_id')
        .where('user_id', '=', userId)
        .where('movie_id', 'in', ids)
        .execute(),
      db
        .selectFrom('ratings')
        .select(['movie_id', 'rating'])
        .where('user_id', '=', userId)
        .where('movie_id', 'in', ids)
        .execute(),
      db
        .selectFrom('user_external_ids')
        .select(['movie_id', 'source', 'external_id'])
        .where('user_id', '=', userId)
        .where('movie_id', 'in', ids)
        .execute(),
      db
        .selectFrom('likes')
        .select('movie_id')
        .where('user_id', '=', userId)
        .where('movie_id', 'in', ids)
        .execute(),
      db
        .selectFrom('entry_tags as et')
        .innerJoin('tags as t', 't.id', 'et.tag_id')
        .innerJoin('watch_dates as w', 'w.id', 'et.watch_date_id')
        .select(['w.movie_id', 'w.watched_at', 't.key'])
        .where('t.user_id', '=', userId)
        .where('w.movie_id', 'in', ids)
        .execute(),
    ]);
    // The entries page by page, with a turn of the event loop between: a library of hundreds of
    // thousands of entries is read without holding the server's other requests (SQLite reads at once).
    let after = 0;
    for (;;) {
      const entries = await db
        .selectFrom('watch_dates')
        .select(['id', 'movie_id', 'watched_at', 'plays', 'comment', 'rating', 'rewatch'])
        .where('user_id', '=', userId)
        .where('movie_id', 'in', ids)
        .where('id', '>', after)
        .orderBy('id')
        .limit(ENTRIES_PAGE)
        .execute();
      for (const row of entries) {
        stateOf(row.movie_id).entries.set(row.watched_at, {
          plays: row.plays,
          comment: row.comment,
          rating: row.rating,
          rewatch: row.rewatch === null ? null : Number(row.rewatch) === 1,
          tagKeys: new Set(),
        });
      }
      if (entries.length < ENTRIES_PAGE) break;
      after = entries.at(-1)!.id;
      await nextTurn();
    }
    for (const row of watchlist) stateOf(row.movie_id).onWatchlist = true;
    for (const row of likes) stateOf(row.movie_id).liked = true;
    for (const row of tags) states.get(row.movie_id)?.entries.get(row.watched_at)?.tagKeys.add(row.key);
    for (const row of ratings) stateOf(row.movie_id).rating = row.rating;
    for (const row of ownIds) stateOf(row.movie_id).ownIds[row.source] = row.external_id;
  }
  return states;
}

/** The ids and names of a movie an export writes beside each record. */
export interface RecordMovie {
  serviceId: number;
  title: string;
  originalTitle: string | null;
  releaseDate: string | null;
  tmdbId: number | null;
  imdbId: string | null;
  traktId: number | null;
  letterboxdId: string | null;
}

export interface PlayRecord {
  /** The watch date's own id: the order plays were recorded in. */
  id: number;
  movie: RecordMovie;
  watchedAt: string | null;
  plays: number;
  comment: string | null;
  position: number;
  /** The user's rating of the movie, if any. */
  rating: number | null;
  /** The entry's own rating (1-10), apart from the movie's; null: none. */
  entryRating: number | null;
  /** The entry's rewatch flag as stored; null: derived (an earlier dated entry of the movie exists). */
  rewatch: boolean | null;
  /** The entry's tags, by name. */
  tags: string[];
}

export interface WatchlistRecord {
  id: number;
  movie: RecordMovie;
  /** ISO timestamp. */
  addedAt: string;
}

export interface RatingRecord {
  movie: RecordMovie;
  rating: number;
  /** ISO timestamps. */
  createdAt: string;
  ratedAt: string;
}

const movieColumns = [
  'm.id as m_id',
  'm.title as m_title',
  'm.original_title as m_original_title',
  'm.release_date as m_release_date',
  'm.tmdb_id as m_tmdb_id',
  'm.imdb_id as m_imdb_id',
  'm.trakt_id as m_trakt_id',
  'm.letterboxd_id as m_letterboxd_id',
] as const;

interface MovieColumns {
  m_id: number;
  m_title: string;
  m_original_title: string | null;
  m_release_date: string | null;
  m_tmdb_id: number | null;
  m_imdb_id: string | null;
  m_trakt_id: number | null;
  m_letterboxd_id: string | null;
}

const toRecordMovie = (row: MovieColumns): RecordMovie => ({
  serviceId: row.m_id,
  title: row.m_title,
  originalTitle: row.m_original_title,
  releaseDate: row.m_release_date,
  tmdbId: row.m_tmdb_id,
  imdbId: row.m_imdb_id,
  traktId: row.m_trakt_id,
  letterboxdId: row.m_letterboxd_id,
});

/** Where the previous page of plays ended. */
export type PlayCursor =
  | { undated: true; id: number }
  | { undated: false; watchedAt: string; position: number; id: number };

/**
 * The next page of a user's plays after `cursor`: first the entries without a date (by id), then the
 * dated ones by date, position and id (the history's order). Keyset paging: every page costs the same.
 */
export async function playRecordsAfter(
  db: Db,
  userId: number,
  cursor: PlayCursor | null,
  limit: number,
): Promise<PlayRecord[]> {
  const base = db
    .selectFrom('watch_dates as w')
    .innerJoin('movies as m', 'm.id', 'w.movie_id')
    .leftJoin('ratings as r', (join) =>
      join.onRef('r.movie_id', '=', 'w.movie_id').on('r.user_id', '=', userId),
    )
    .select([
      ...movieColumns,
      'w.id',
      'w.watched_at',
      'w.plays',
      'w.comment',
      'w.position',
      'r.rating',
      'w.rating as entry_rating',
      'w.rewatch',
    ])
    .where('w.user_id', '=', userId);
  let rows: Awaited<ReturnType<typeof base.execute>> = [];
  if (cursor === null || cursor.undated) {
    rows = await base
      .where('w.watched_at', 'is', null)
      .where('w.id', '>', cursor?.id ?? 0)
      .orderBy('w.id')
      .limit(limit)
      .execute();
  }
  if (rows.length < limit) {
    let dated = base.where('w.watched_at', 'is not', null);
    if (cursor && !cursor.undated) {
      dated = dated.where(
        sql<boolean>`(w.watched_at, w.position, w.id) > (${cursor.watchedAt}, ${sql`cast(${cursor.position} as double precision)`}, ${cursor.id})`,
      );
    }
    const more = await dated
      .orderBy('w.watched_at')
      .orderBy('w.position')
      .orderBy('w.id')
      .limit(limit - rows.length)
      .execute();
    rows = [...rows, ...more];
  }
  const tags = await tagsOfEntries(
    db,
    rows.map((row) => row.id),
  );
  return rows.map((row) => ({
    id: row.id,
    movie: toRecordMovie(row),
    watchedAt: row.watched_at,
    plays: row.plays,
    comment: row.comment,
    position: Number(row.position),
    rating: row.rating,
    entryRating: row.entry_rating,
    rewatch: row.rewatch === null ? null : Number(row.rewatch) === 1,
    tags: tags.get(row.id) ?? [],
  }));
}

export const cursorOfPlay = (record: PlayRecord): PlayCursor =>
  record.watchedAt === null
    ? { undated: true, id: record.id }
    : { undated: false, watchedAt: record.watchedAt, position: record.position, id: record.id };

/** The next page of the watchlist after the entry with id `afterId`, in the order entries were added. */
export async function watchlistRecordsAfter(
  db: Db,
  userId: number,
  afterId: number,
  limit: number,
): Promise<WatchlistRecord[]> {
  const rows = await db
    .selectFrom('watchlist as wl')
    .innerJoin('movies as m', 'm.id', 'wl.movie_id')
    .select([...movieColumns, 'wl.id', 'wl.added_at'])
    .where('wl.user_id', '=', userId)
    .where('wl.id', '>', afterId)
    .orderBy('wl.id')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ id: row.id, movie: toRecordMovie(row), addedAt: row.added_at }));
}

/** The next page of ratings after the one of movie `afterMovieId`, by movie. */
export async function ratingRecordsAfter(
  db: Db,
  userId: number,
  afterMovieId: number,
  limit: number,
): Promise<RatingRecord[]> {
  const rows = await db
    .selectFrom('ratings as r')
    .innerJoin('movies as m', 'm.id', 'r.movie_id')
    .select([...movieColumns, 'r.rating', 'r.created_at', 'r.updated_at'])
    .where('r.user_id', '=', userId)
    .where('r.movie_id', '>', afterMovieId)
    .orderBy('r.movie_id')
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    movie: toRecordMovie(row),
    rating: row.rating,
    createdAt: row.created_at,
    ratedAt: row.updated_at,
  }));
}

// ---- io30: the likes and lists of a user's export ----

export interface LikeRecord {
  movie: RecordMovie;
  /** ISO timestamp. */
  likedAt: string;
}

/** The next page of the user's likes after the one of movie `afterMovieId`, by movie. */
export async function likeRecordsAfter(
  db: Db,
  userId: number,
  afterMovieId: number,
  limit: number,
): Promise<LikeRecord[]> {
  const rows = await db
    .selectFrom('likes as l')
    .innerJoin('movies as m', 'm.id', 'l.movie_id')
    .select([...movieColumns, 'l.liked_at'])
    .where('l.user_id', '=', userId)
    .where('l.movie_id', '>', afterMovieId)
    .orderBy('l.movie_id')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ movie: toRecordMovie(row), likedAt: row.liked_at }));
}

export interface ListRecord {
  id: number;
  name: string;
  description: string | null;
  ranked: boolean;
  visibility: ListVisibility;
  /** ISO timestamps. */
  createdAt: string;
  /** Its movies in position order (1..n). */
  movies: { movie: RecordMovie; position: number; note: string | null; addedAt: string }[];
}

/** The user's list `listId` with all its movies (at most MAX_LIST_MOVIES); undefined: they have none of that id. */
export async function listRecordOf(db: Db, userId: number, listId: number): Promise<ListRecord | undefined> {
  const list = await db
    .selectFrom('lists')
    .selectAll()
    .where('user_id', '=', userId)
    .where('id', '=', listId)
    .executeTakeFirst();
  if (!list) return undefined;
  const movies = await db
    .selectFrom('list_movies as lm')
    .innerJoin('movies as m', 'm.id', 'lm.movie_id')
    .select([...movieColumns, 'lm.position', 'lm.note', 'lm.added_at'])
    .where('lm.list_id', '=', list.id)
    .orderBy('lm.position')
    .execute();
  return {
    id: list.id,
    name: list.name,
    description: list.description,
    ranked: Number(list.ranked) === 1,
    visibility: list.visibility,
    createdAt: list.created_at,
    movies: movies.map((row) => ({
      movie: toRecordMovie(row),
      position: Number(row.position),
      note: row.note,
      addedAt: row.added_at,
    })),
  };
}
