import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { notFound, ValidationError } from '../../shared/errors.js';
import { assertMoviesExist } from '../movies/movies.guards.js';
import { type ExternalSource, keepExternalIds } from './external-ids.repository.js';
import { entryProblem, MAX_COMMENT_LENGTH, MAX_PLAYS, todayOf } from './library.rules.js';
import { entriesOfMovie } from './overview.repository.js';
import { clearRatings, setRating } from './ratings.repository.js';
import { type StoredMovieState, storedStateOf } from './records.repository.js';
import type { PlayChanges } from './statistics-aggregates.js';
import type { OwnerPolicy } from './version.repository.js';
import {
  addPlays,
  deleteWatchDates,
  findEntries,
  replacePlays,
  type WatchDateWrite,
} from './watch-dates.repository.js';
import { addToWatchlist, removeFromWatchlist } from './watchlist.repository.js';

export { MAX_COMMENT_LENGTH, MAX_PLAYS };

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
    const dayOf = (date: string | null) => date ?? 'the unknown date';
    if (!existing.includes(from)) {
      throw notFound('EntryNotFound', `no entry of movie ${movieId} on ${dayOf(from)}`);
    }
    if (change.to !== from) {
      if (existing.includes(change.to)) {
        throw new ValidationError(
          `movie ${movieId} has an entry on ${dayOf(change.to)} already: change that one instead`,
        );
      }
      await this.#delete(movieId, [from]);
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

const movieIdsOf = (items: readonly { movieId: number }[]) => items.map((item) => item.movieId);
