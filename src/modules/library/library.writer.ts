import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { notFound, ValidationError } from '../../shared/errors.js';
import { MAX_ID } from '../../shared/schemas.js';
import { assertMoviesExist } from '../movies/movies.guards.js';
import { entryById, entryIdOf, tagEntry, updateEntry } from './diary.repository.js';
import { type ExternalSource, keepExternalIds } from './external-ids.repository.js';
import {
  entryProblem,
  type ListVisibility,
  listDescriptionProblem,
  listNameProblem,
  listNoteProblem,
  listVisibilityProblem,
  MAX_COMMENT_LENGTH,
  MAX_LIST_MOVIES,
  MAX_LISTS_PER_USER,
  MAX_PLAYS,
  ratingProblem,
  tagCountProblem,
  tagKey,
  tagProblem,
  todayOf,
} from './library.rules.js';
import { likeMovies, unlikeMovies } from './likes.repository.js';
import {
  countListMovies,
  countLists,
  deleteList,
  deleteListMovie,
  findList,
  insertList,
  insertListMovie,
  type ListSummary,
  type ListValues,
  listEntryOf,
  listsOf,
  shiftPositions,
  updateList,
  updateListMovie,
} from './lists.repository.js';
import { entriesOfMovie } from './overview.repository.js';
import { clearRatings, setRating } from './ratings.repository.js';
import { type StoredMovieState, storedStateOf } from './records.repository.js';
import type { PlayChanges } from './statistics-aggregates.js';
import type { OwnerPolicy } from './version.repository.js';
import {
  addPlays,
  deleteEntries,
  deleteWatchDates,
  findEntries,
  replacePlays,
  type WatchDateWrite,
} from './watch-dates.repository.js';
import { addToWatchlist, removeFromWatchlist } from './watchlist.repository.js';

export { MAX_COMMENT_LENGTH, MAX_PLAYS };

/** A play logged in the diary: an entry's plays, and its own rating, rewatch flag and tags. */
export interface DiaryWrite extends WatchDateWrite {
  /** The entry's rating, which is the movie's rating from now on too; absent or null: both kept. */
  rating?: number | null | undefined;
  /** Whether it is a rewatch, as the user says; null: derived (an earlier dated entry); absent: kept. */
  rewatch?: boolean | null | undefined;
  /** Tags added to the entry's own (one tag per spelling ignoring case). */
  tags?: readonly string[] | undefined;
}

/** A change of one diary entry; a field absent is kept. */
export interface DiaryChange {
  /** Moves the entry (null: the unknown date). */
  watchedAt?: string | null | undefined;
  plays?: number | undefined;
  comment?: string | null | undefined;
  position?: number | undefined;
  /** The entry's own rating (null: none); the movie's rating is not changed. */
  rating?: number | null | undefined;
  /** null: derived again. */
  rewatch?: boolean | null | undefined;
  /** The entry's tags, instead of those it has. */
  tags?: readonly string[] | undefined;
}

/**
 * The operations of one library write (`Library.write`), all in its transaction, which already holds
 * the owner's lock. Each checks that the movies it names exist: one unknown id is a 404 naming every
 * unknown id of the call, and the whole write is rolled back. Every entry written is held to the rules
 * of library.rules.ts (its date, plays, comment and position): one that breaks them is a 400, and the
 * whole write is rolled back, whoever asked (the API, a page, an import, a scrobble).
 */
export class LibraryWriter {
  #today: string | undefined;
  #policy: OwnerPolicy | (() => Promise<OwnerPolicy>);

  constructor(
    /** The write's transaction: the library's own; a caller's record goes in through `alongside`. */
    private readonly trx: Kysely<Database>,
    /** Whose library it is. */
    private readonly userId: number,
    /** Their time zone and watchlist auto-remove, as read under the write's lock (or how to read it). */
    policy: OwnerPolicy | (() => Promise<OwnerPolicy>),
    /** The write's time, ISO. */
    readonly now: string,
    /** Where the entries written or deleted are noted, for the statistics (`notePending`). */
    private readonly changes: PlayChanges,
  ) {
    this.#policy = policy;
  }

  /**
   * Adds plays to each (movie, date) entry, creating it if needed (a null comment keeps the stored
   * one). `movieIds`: every movie the request names, entries or not (a played item may list no date).
   */
  addPlays(entries: readonly WatchDateWrite[], movieIds: readonly number[] = movieIdsOf(entries)) {
    return this.#writePlays('add', entries, movieIds);
  }

  /** Sets plays, comment and position of each (movie, date) entry, creating it if needed. */
  replacePlays(entries: readonly WatchDateWrite[], movieIds: readonly number[] = movieIdsOf(entries)) {
    return this.#writePlays('replace', entries, movieIds);
  }

  /**
   * Deletes watch dates: the given dates of each movie (null: the entry of plays with an unknown date),
   * or every date of the movie when `dates` is absent or empty.
   */
  async deleteDates(items: readonly { movieId: number; dates?: readonly (string | null)[] | undefined }[]) {
    await assertMoviesExist(this.trx, movieIdsOf(items));
    for (const item of items) {
      await this.#delete(item.movieId, item.dates?.length ? item.dates : undefined);
    }
  }

  /**
   * Changes one entry (the history page's edit): its plays, comment and position, and its date
   * (`to`), which moves the entry; null on either side is the entry of plays with an unknown date.
   * Moving onto a date that has an entry of the movie already is refused (edit that one); so is an
   * entry that does not exist.
   */
  async editEntry(
    movieId: number,
    from: string | null,
    change: { to: string | null; plays: number; comment: string | null; position: number },
  ) {
    await assertMoviesExist(this.trx, [movieId]);
    const existing = await findEntries(this.trx, this.userId, movieId, [from, change.to]);
    if (!existing.includes(from)) {
      throw notFound('EntryNotFound', `no entry of movie ${movieId} on ${dayOf(from)}`);
    }
    if (change.to !== from) {
      if (existing.includes(change.to)) {
        throw new ValidationError(
          `movie ${movieId} has an entry on ${dayOf(change.to)} already: change that one instead`,
        );
      }
      // Moved in place: the entry keeps its own rating, rewatch flag and tags.
      const id = await entryIdOf(this.trx, this.userId, movieId, from);
      await updateEntry(this.trx, this.userId, id!, { watched_at: change.to }, this.now);
      this.changes.touch(movieId, from);
    }
    await this.replacePlays([
      {
        movieId,
        watchedAt: change.to,
        plays: change.plays,
        comment: change.comment,
        position: change.position,
      },
    ]);
  }

  /**
   * Logs plays in the diary: adds them to each (movie, date) entry as `addPlays` does (creating it if
   * needed), and sets what each item gives of the entry's own rating, rewatch flag and tags (added to
   * its own). A rating given is the movie's rating from now on too: logging a play with a rating rates
   * the movie. An entry left with more than MAX_TAGS_PER_ENTRY tags is a 400, and nothing is written.
   */
  async logEntries(items: readonly DiaryWrite[]) {
    for (const item of items) this.#checkDiaryValues(item.movieId, item.watchedAt, item);
    await this.#writePlays('add', items, movieIdsOf(items));
    await this.#setEntryValues(items);
    const rated = items.flatMap((item) =>
      item.rating == null ? [] : [{ movieId: item.movieId, rating: item.rating }],
    );
    if (rated.length > 0) await this.setRatings(rated);
  }

  /**
   * Sets the own rating and rewatch flag of entries there already (imports), and adds tags to their
   * own; the movie's rating is not changed. An entry that does not exist is a 404, and nothing of the
   * batch stays; so is one left with more than MAX_TAGS_PER_ENTRY tags (a 400).
   */
  async describeEntries(items: readonly Omit<DiaryWrite, 'plays' | 'comment' | 'position'>[]) {
    for (const item of items) this.#checkDiaryValues(item.movieId, item.watchedAt, item);
    await assertMoviesExist(this.trx, movieIdsOf(items));
    for (const item of items) {
      if ((await entryIdOf(this.trx, this.userId, item.movieId, item.watchedAt)) === undefined) {
        throw notFound('EntryNotFound', `no entry of movie ${item.movieId} on ${dayOf(item.watchedAt)}`);
      }
    }
    await this.#setEntryValues(items);
  }

  async #setEntryValues(items: readonly Omit<DiaryWrite, 'plays' | 'comment' | 'position'>[]) {
    for (const item of items) {
      const tags = item.tags ?? [];
      if ((item.rating ?? null) === null && item.rewatch === undefined && tags.length === 0) continue;
      const id = await entryIdOf(this.trx, this.userId, item.movieId, item.watchedAt);
      if (id === undefined) throw new Error(`the entry of movie ${item.movieId} was not written`);
      const values = {
        ...(item.rating != null && { rating: item.rating }),
        ...(item.rewatch !== undefined && { rewatch: flagOf(item.rewatch) }),
      };
      if (Object.keys(values).length > 0) {
        await updateEntry(this.trx, this.userId, id, values, this.now);
        // The statistics count the entries' own ratings and rewatches (one note per entry and write).
        this.changes.touch(item.movieId, item.watchedAt);
      }
      if (tags.length > 0) {
        const count = await tagEntry(this.trx, this.userId, id, tags, 'add', this.now);
        const problem = tagCountProblem(count);
        if (problem) {
          throw new ValidationError(
            `movie ${item.movieId} on ${dayOf(item.watchedAt)}: ${problem} (none of the batch was applied)`,
          );
        }
      }
    }
  }

  /**
   * Changes the diary entry `id` (one of the owner's watch dates): what `change` gives, the rest kept.
   * Its rating is the entry's alone: the movie's rating stays. Moving it onto a date that has an entry
   * of the movie already is refused (change that one); an unknown id is a 404.
   */
  async editDiaryEntry(id: number, change: DiaryChange) {
    const entry = await entryById(this.trx, this.userId, id);
    if (entry === undefined) throw notFound('EntryNotFound', `no diary entry ${id}`);
    const next = {
      watchedAt: change.watchedAt === undefined ? entry.watched_at : change.watchedAt,
      plays: change.plays ?? Number(entry.plays),
      comment: change.comment === undefined ? entry.comment : change.comment,
      position: change.position ?? Number(entry.position),
    };
    this.#today ??= todayOf(this.now, (await this.policy()).timezone);
    const problem = entryProblem(next, this.#today);
    if (problem) throw new ValidationError(`entry ${id}: ${problem}`);
    this.#checkDiaryValues(entry.movie_id, next.watchedAt, change);
    const moved = next.watchedAt !== entry.watched_at;
    if (moved && (await findEntries(this.trx, this.userId, entry.movie_id, [next.watchedAt])).length > 0) {
      throw new ValidationError(
        `movie ${entry.movie_id} has an entry on ${dayOf(next.watchedAt)} already: change that one instead`,
      );
    }
    await updateEntry(
      this.trx,
      this.userId,
      id,
      {
        watched_at: next.watchedAt,
        plays: next.plays,
        comment: next.comment,
        position: next.position,
        ...(change.rating !== undefined && { rating: change.rating }),
        ...(change.rewatch !== undefined && { rewatch: flagOf(change.rewatch) }),
      },
      this.now,
    );
    // The statistics count plays, dates, the entries' own ratings and rewatch flags.
    const rated = change.rating !== undefined && change.rating !== entry.rating;
    const flagged = change.rewatch !== undefined && flagOf(change.rewatch) !== entry.rewatch;
    if (moved || next.plays !== Number(entry.plays) || rated || flagged) {
      this.changes.touch(entry.movie_id, entry.watched_at);
      this.changes.touch(entry.movie_id, next.watchedAt);
    }
    if (change.tags !== undefined) {
      await tagEntry(this.trx, this.userId, id, change.tags, 'replace', this.now);
    }
  }

  /** Deletes the diary entry `id` (one of the owner's watch dates) with its tags; an unknown id is a 404. */
  async deleteDiaryEntry(id: number) {
    const entry = await entryById(this.trx, this.userId, id);
    if (entry === undefined) throw notFound('EntryNotFound', `no diary entry ${id}`);
    for (const date of await deleteEntries(this.trx, this.userId, [id])) {
      this.changes.touch(entry.movie_id, date);
    }
  }

  /** A 400 when the entry's own rating, rewatch flag or tags cannot be as given. */
  #checkDiaryValues(
    movieId: number,
    watchedAt: string | null,
    values: { rating?: number | null | undefined; tags?: readonly string[] | undefined },
  ) {
    const tags = values.tags ?? [];
    const problem =
      (values.rating == null ? null : ratingProblem(values.rating)) ??
      tags.map(tagProblem).find((p) => p !== null) ??
      tagCountProblem(new Set(tags.map(tagKey)).size);
    if (problem) {
      throw new ValidationError(
        `movie ${movieId} on ${dayOf(watchedAt)}: ${problem} (none of the batch was applied)`,
      );
    }
  }

  /**
   * Runs `step` in this write's transaction, under the owner's lock: a record another module keeps
   * with the write (the scrobble inbox's event and its dedupe check) commits or rolls back with it.
   * A step reads and writes its own tables only, never the library's (test/architecture.test.ts).
   */
  alongside<T>(step: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
    return step(this.trx);
  }

  /** Puts movies on the watchlist; one already there keeps the day it was added. */
  async addToWatchlist(movieIds: readonly number[]) {
    await assertMoviesExist(this.trx, movieIds);
    await addToWatchlist(this.trx, this.userId, movieIds, this.now);
  }

  /**
   * Puts movies on the watchlist one by one, in the given order, each with the time it was added
   * (imports: the file's time); one already there keeps its own.
   */
  async addToWatchlistAt(items: readonly { movieId: number; addedAt: string }[]) {
    await assertMoviesExist(this.trx, movieIdsOf(items));
    for (const item of items) await addToWatchlist(this.trx, this.userId, [item.movieId], item.addedAt);
  }

  /** What the owner keeps of these movies now, in this write (an import compares it with its file). */
  storedState(movieIds: readonly number[]): Promise<Map<number, StoredMovieState>> {
    return storedStateOf(this.trx, this.userId, movieIds);
  }

  /** Takes movies off the watchlist; one not on it is no error. */
  async removeFromWatchlist(movieIds: readonly number[]) {
    await assertMoviesExist(this.trx, movieIds);
    await removeFromWatchlist(this.trx, this.userId, movieIds);
  }

  /** Sets or replaces the owner's 1-10 ratings; `ratedAt` (ISO, imports) instead of the write's time. */
  async setRatings(items: readonly { movieId: number; rating: number; ratedAt?: string | undefined }[]) {
    await assertMoviesExist(this.trx, movieIdsOf(items));
    for (const item of [...items].sort((a, b) => a.movieId - b.movieId)) {
      if (!Number.isInteger(item.rating) || item.rating < 1 || item.rating > 10) {
        throw new RangeError(`a rating is an integer from 1 to 10, not ${item.rating}`);
      }
      await setRating(this.trx, this.userId, item.movieId, item.rating, item.ratedAt ?? this.now);
      // The statistics count a movie's rating where no entry has its own (one note per movie and write).
      this.changes.touch(item.movieId, null);
    }
  }

  /**
   * Keeps the ids the owner's import gave these movies on other sites (a Trakt id, a Letterboxd
   * slug), for the owner alone; the first id of a movie, and the first movie of an id, hold.
   */
  async keepExternalIds(items: readonly { source: ExternalSource; externalId: string; movieId: number }[]) {
    if (items.length === 0) return;
    await assertMoviesExist(this.trx, movieIdsOf(items));
    await keepExternalIds(this.trx, this.userId, items, this.now);
  }

  /** Deletes the owner's ratings of these movies; a movie not rated is no error. */
  async clearRatings(movieIds: readonly number[]) {
    await assertMoviesExist(this.trx, movieIds);
    await clearRatings(this.trx, this.userId, movieIds);
    for (const movieId of movieIds) this.changes.touch(movieId, null);
  }

  /** Likes the movies (a heart, apart from any rating); one liked already keeps its first `likedAt`. */
  async likeMovies(movieIds: readonly number[]) {
    await assertMoviesExist(this.trx, movieIds);
    await likeMovies(this.trx, this.userId, movieIds, this.now);
  }

  /** Likes the movies one by one, each at its own time (imports: the file's); one liked keeps its own. */
  async likeMoviesAt(items: readonly { movieId: number; likedAt: string }[]) {
    await assertMoviesExist(this.trx, movieIdsOf(items));
    for (const item of items) await likeMovies(this.trx, this.userId, [item.movieId], item.likedAt);
  }

  /** The owner's lists, the most recently changed first (an import finds its lists by name). */
  ownLists(): Promise<ListSummary[]> {
    return listsOf(this.trx, this.userId);
  }

  /** Takes the likes of these movies back; a movie not liked is no error. How many were liked. */
  async unlikeMovies(movieIds: readonly number[]): Promise<number> {
    await assertMoviesExist(this.trx, movieIds);
    return unlikeMovies(this.trx, this.userId, movieIds);
  }

  /**
   * Creates a list of the owner's: `private` and not ranked unless said otherwise. At most
   * MAX_LISTS_PER_USER lists; the name and description held to library.rules.ts.
   */
  async createList(values: {
    name: string;
    description?: string | null | undefined;
    ranked?: boolean | undefined;
    visibility?: ListVisibility | undefined;
  }): Promise<ListSummary> {
    const full: ListValues = {
      name: values.name,
      description: values.description ?? null,
      ranked: values.ranked ?? false,
      visibility: values.visibility ?? 'private',
    };
    listValuesRefused(full);
    if ((await countLists(this.trx, this.userId)) >= MAX_LISTS_PER_USER) {
      throw new ValidationError(`a user keeps at most ${MAX_LISTS_PER_USER.toLocaleString('en')} lists`);
    }
    const id = await insertList(this.trx, this.userId, full, this.now);
    return (await findList(this.trx, this.userId, id))!;
  }

  /** Changes what is given of one of the owner's lists (404 for a list they do not have). */
  async changeList(listId: number, changes: Partial<ListValues>): Promise<ListSummary> {
    const list = await this.#ownList(listId);
    listValuesRefused(changes);
    if (!Object.values(changes).some((value) => value !== undefined)) return list;
    await updateList(this.trx, listId, changes, this.now);
    return (await findList(this.trx, this.userId, listId))!;
  }

  /** Deletes one of the owner's lists with its movies (404 for a list they do not have). */
  async deleteList(listId: number): Promise<void> {
    await this.#ownList(listId);
    await deleteList(this.trx, listId);
  }

  /**
   * Adds movies to one of the owner's lists, or moves them on it, in the order given. A movie not on
   * the list goes at `position` (the others from there move down one) or, without one, at the end; a
   * movie on it moves to `position` (the others close up and make room), or stays where it is without
   * one. A position past the end is the end. `note`: absent keeps the stored note (none for a new
   * movie), null clears it. The positions stay 1..n without gaps; at most MAX_LIST_MOVIES movies.
   */
  async putListMovies(
    listId: number,
    items: readonly {
      movieId: number;
      position?: number | undefined;
      note?: string | null | undefined;
      /** When a movie new on the list was added (imports: the file's); absent: now. */
      addedAt?: string | undefined;
    }[],
  ): Promise<void> {
    await this.#ownList(listId);
    await assertMoviesExist(this.trx, movieIdsOf(items));
    for (const item of items) {
      const problem = typeof item.note === 'string' ? listNoteProblem(item.note) : null;
      if (problem)
        throw new ValidationError(`movie ${item.movieId}: ${problem} (none of the batch was applied)`);
      if (item.position !== undefined && !(Number.isSafeInteger(item.position) && item.position >= 1)) {
        throw new ValidationError(`movie ${item.movieId}: a position on a list is a whole number from 1`);
      }
    }
    let count = await countListMovies(this.trx, listId);
    for (const item of items) {
      const stored = await listEntryOf(this.trx, listId, item.movieId);
      if (stored === undefined) {
        if (count >= MAX_LIST_MOVIES) {
          throw new ValidationError(
            `a list holds at most ${MAX_LIST_MOVIES.toLocaleString('en')} movies (none of the batch was applied)`,
          );
        }
        const position = Math.min(item.position ?? count + 1, count + 1);
        await shiftPositions(this.trx, listId, position, count, 1);
        await insertListMovie(this.trx, {
          listId,
          movieId: item.movieId,
          position,
          note: item.note ?? null,
          addedAt: item.addedAt ?? this.now,
        });
        count += 1;
        continue;
      }
      const from = stored.position;
      const to = item.position === undefined ? from : Math.min(item.position, count);
      if (to < from) await shiftPositions(this.trx, listId, to, from - 1, 1);
      if (to > from) await shiftPositions(this.trx, listId, from + 1, to, -1);
      const note = item.note === undefined ? stored.note : item.note;
      if (to !== from || note !== stored.note) {
        await updateListMovie(this.trx, listId, item.movieId, { position: to, note });
      }
    }
    await updateList(this.trx, listId, {}, this.now);
  }

  /**
   * Takes movies off one of the owner's lists; the rest close up. A movie not on it is no error. How
   * many were on it.
   */
  async removeListMovies(listId: number, movieIds: readonly number[]): Promise<number> {
    await this.#ownList(listId);
    await assertMoviesExist(this.trx, movieIds);
    let removed = 0;
    for (const movieId of new Set(movieIds)) {
      const stored = await listEntryOf(this.trx, listId, movieId);
      if (stored === undefined) continue;
      await deleteListMovie(this.trx, listId, movieId);
      await shiftPositions(this.trx, listId, stored.position + 1, MAX_ID, -1);
      removed += 1;
    }
    await updateList(this.trx, listId, {}, this.now);
    return removed;
  }

  async #ownList(listId: number): Promise<ListSummary> {
    const list = await findList(this.trx, this.userId, listId);
    if (!list) throw notFound('ListNotFound', `no list ${listId}`);
    return list;
  }

  async #delete(movieId: number, dates: readonly (string | null)[] | undefined) {
    const deleted = await deleteWatchDates(this.trx, this.userId, movieId, dates);
    for (const date of deleted) this.changes.touch(movieId, date);
  }

  async #notWritten(entry: WatchDateWrite, movieIds: readonly number[]): Promise<never> {
    // Why nothing was written: an unknown movie (the 404 names every unknown id of the batch), or plays
    // that would pass the cap. The transaction takes back what the batch wrote before.
    await assertMoviesExist(this.trx, movieIds);
    const entries = await entriesOfMovie(this.trx, this.userId, entry.movieId);
    const stored = entries.find((row) => row.watched_at === entry.watchedAt);
    if (stored === undefined) throw new Error(`the watch date of movie ${entry.movieId} was not written`);
    const plays = Number(stored.plays) + entry.plays;
    throw new ValidationError(
      `movie ${entry.movieId} on ${entry.watchedAt ?? 'the unknown date'} would have ${plays.toLocaleString('en')} plays: at most ${MAX_PLAYS.toLocaleString('en')} (none of the batch was applied)`,
    );
  }

  /** The owner's time zone and watchlist auto-remove, as they stand under the write's lock. */
  async policy(): Promise<OwnerPolicy> {
    if (typeof this.#policy === 'function') this.#policy = await this.#policy();
    return this.#policy;
  }

  async #writePlays(
    mode: 'add' | 'replace',
    entries: readonly WatchDateWrite[],
    movieIds: readonly number[],
  ) {
    // Movies named without any entry are checked here; the others by their writes below.
    const withEntries = new Set(entries.map((e) => e.movieId));
    if (movieIds.some((id) => !withEntries.has(id))) await assertMoviesExist(this.trx, movieIds);
    const policy = await this.policy();
    if (entries.length > 0) this.#today ??= todayOf(this.now, policy.timezone);
    for (const entry of entries) {
      const problem = entryProblem(entry, this.#today!);
      if (problem) {
        throw new ValidationError(
          `movie ${entry.movieId} on ${entry.watchedAt ?? 'the unknown date'}: ${problem} (none of the batch was applied)`,
        );
      }
    }
    const write = mode === 'add' ? addPlays : replacePlays;
    // One order for every writer (movie, then date), so concurrent batches never lock rows in a cycle.
    const ordered = [...entries].sort(
      (a, b) => a.movieId - b.movieId || String(a.watchedAt).localeCompare(String(b.watchedAt)),
    );
    for (const entry of ordered) {
      if (!(await write(this.trx, this.userId, entry, this.now))) await this.#notWritten(entry, movieIds);
      this.changes.touch(entry.movieId, entry.watchedAt);
    }
    if (policy.watchlistAutoRemove) {
      await removeFromWatchlist(this.trx, this.userId, [...withEntries]);
    }
  }
}

/** Throws the 400 of the first value of a list that breaks the rules of library.rules.ts. */
function listValuesRefused(values: Partial<ListValues>): void {
  const problem =
    (values.name === undefined ? null : listNameProblem(values.name)) ??
    (typeof values.description === 'string' ? listDescriptionProblem(values.description) : null) ??
    (values.visibility === undefined ? null : listVisibilityProblem(values.visibility));
  if (problem) throw new ValidationError(problem);
}

const movieIdsOf = (items: readonly { movieId: number }[]) => items.map((item) => item.movieId);

const dayOf = (date: string | null) => date ?? 'the unknown date';

/** A rewatch flag as stored: 1, 0, or null (derived). */
const flagOf = (rewatch: boolean | null) => (rewatch === null ? null : rewatch ? 1 : 0);
