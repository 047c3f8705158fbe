import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { findMoviesWithRating } from '../library/library-movies.repository.js';
import { toMovie } from '../movies/movies.presenter.js';
import type { Movie } from '../movies/movies.schemas.js';
import type { User } from '../users/users.service.js';
import { entriesOfYear } from './year-review.repository.js';

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
}

export interface YearReviewService {
  forUser(owner: User, year: number): Promise<YearReview>;
}

export function createYearReviewService(deps: {
  db: Kysely<Database>;
  imageBaseUrl: string;
}): YearReviewService {
  const { db, imageBaseUrl } = deps;
  return {
    async forUser(owner, year) {
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
      const movieRows = await findMoviesWithRating(db, [...byMovie.keys()], owner.id);
      const movies = [...byMovie].map(([movieId, { first, last, plays }]) => ({
        movie: toMovie(movieRows.get(movieId)!, imageBaseUrl),
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
      return { movies, first: movies[0] ?? null, last: movies[last] ?? null, highestRated };
    },
  };
}
