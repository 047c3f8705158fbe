import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { calendarDateIn } from '../../shared/dates.js';
import type { Library, ListSummary } from '../library/library.service.js';
import { findMoviesWithRating } from '../library/library-movies.repository.js';
import { toMovie } from '../movies/movies.presenter.js';
import type { Movie } from '../movies/movies.schemas.js';
import type { User } from '../users/users.service.js';
import { entriesOfYear, firstMoviesOfLists, likesAroundYear } from './year-review.repository.js';

/** How many posters a list of the year shows. */
export const LIST_POSTERS = 4;

export interface YearMovie {
  movie: Movie;
  /** The first and the last day it was watched that year. */
  first: string;
  last: string;
  plays: number;
}

/** What a year in review shows beyond the statistics: its movies, first and last, and the best rated. */
export interface YearReview {
  /** Every movie of the year, in the order first watched (by date, then place within the day). */
  movies: YearMovie[];
  first: YearMovie | null;
  last: YearMovie | null;
  /** The highest rated (the user's rating) of the year's movies; more plays, then earlier, win ties. */
  highestRated: YearMovie | null;
  /** The movies liked that year (the day in the owner's time zone), newest like first. */
  likes: { movie: Movie; likedAt: string }[];
  /**
   * The owner's lists created or changed that year (in their time zone) that the reader may read, the
   * most recently changed first, each with its first LIST_POSTERS movies.
   */
  lists: { list: ListSummary; movies: Movie[] }[];
}

export interface YearReviewService {
  /** `readerId`: who reads it (null: no one signed in), for the lists they may read. */
  forUser(owner: User, year: number, readerId: number | null): Promise<YearReview>;
}

export function createYearReviewService(deps: {
  db: Kysely<Database>;
  imageBaseUrl: string;
  library: Pick<Library, 'lists'>;
}): YearReviewService {
  const { db, imageBaseUrl, library } = deps;
  const inYear = (iso: string, owner: User, year: number) =>
    calendarDateIn(new Date(iso), owner.timezone).startsWith(`${year}-`);
  return {
    async forUser(owner, year, readerId) {
      // The entries come in the history's order: a movie's first entry places it, its last dates it.
      const byMovie = new Map<number, { first: string; last: string; lastAt: number; plays: number }>();
      const entries = await entriesOfYear(db, owner.id, year);
      entries.forEach((entry, at) => {
        const seen = byMovie.get(entry.movieId);
        if (seen) Object.assign(seen, { last: entry.watchedAt, lastAt: at, plays: seen.plays + entry.plays });
        else
          byMovie.set(entry.movieId, {
            first: entry.watchedAt,
            last: entry.watchedAt,
            lastAt: at,
            plays: entry.plays,
          });
      });
      const [likes, lists] = await Promise.all([
        likesAroundYear(db, owner.id, year).then((rows) =>
          rows.filter((like) => inYear(like.likedAt, owner, year)),
        ),
        library
          .lists(owner, readerId)
          .then((all) =>
            all.filter((list) => inYear(list.createdAt, owner, year) || inYear(list.updatedAt, owner, year)),
          ),
      ]);
      const listMovies = await firstMoviesOfLists(
        db,
        lists.map((list) => list.id),
        LIST_POSTERS,
      );
      const movieRows = await findMoviesWithRating(
        db,
        [
          ...new Set([
            ...byMovie.keys(),
            ...likes.map((like) => like.movieId),
            ...[...listMovies.values()].flat(),
          ]),
        ],
        owner.id,
      );
      const movieOf = (movieId: number) => toMovie(movieRows.get(movieId)!, imageBaseUrl);
      const movies = [...byMovie].map(([movieId, { first, last, plays }]) => ({
        movie: movieOf(movieId),
        first,
        last,
        plays,
      }));
      // The last movie: the one whose last entry comes last in the history's order.
      const aggregates = [...byMovie.values()];
      let last = -1;
      aggregates.forEach((movie, i) => {
        if (last < 0 || movie.lastAt > aggregates[last]!.lastAt) last = i;
      });
      // Ties: more plays, then the one watched first that year.
      const place = new Map(movies.map((movie, i) => [movie, i]));
      const highestRated =
        movies
          .filter((entry) => entry.movie.userRating !== null)
          .sort(
            (a, b) =>
              b.movie.userRating! - a.movie.userRating! || b.plays - a.plays || place.get(a)! - place.get(b)!,
          )[0] ?? null;
      return {
        movies,
        first: movies[0] ?? null,
        last: movies[last] ?? null,
        highestRated,
        likes: likes.map((like) => ({
          movie: movieOf(like.movieId),
          likedAt: calendarDateIn(new Date(like.likedAt), owner.timezone),
        })),
        lists: lists.map((list) => ({ list, movies: (listMovies.get(list.id) ?? []).map(movieOf) })),
      };
    },
  };
}
