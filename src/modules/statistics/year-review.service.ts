import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { findMoviesWithRating } from '../library/library-movies.repository.js';
import { toMovie } from '../movies/movies.presenter.js';
import type { Movie } from '../movies/movies.schemas.js';
import type { User } from '../users/users.service.js';
import { moviesWatchedIn } from './year-review.repository.js';

export interface YearMovie {
  movie: Movie;
  /** The first and the last day it was watched that year. */
  first: string;
  last: string;
  plays: number;
}

/** What a year in review shows beyond the statistics: its movies, first and last, and the best rated. */
export interface YearReview {
  /** Every movie of the year, in the order first watched. */
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
      const rows = await moviesWatchedIn(db, owner.id, year);
      const movieRows = await findMoviesWithRating(
        db,
        rows.map((row) => row.movieId),
        owner.id,
      );
      const movies = rows
        .map((row) => ({
          movie: toMovie(movieRows.get(row.movieId)!, imageBaseUrl),
          first: String(row.first),
          last: String(row.last),
          plays: Number(row.plays),
        }))
        .sort((a, b) => a.first.localeCompare(b.first) || a.movie.title.localeCompare(b.movie.title));
      const latest = [...movies].sort((a, b) => b.last.localeCompare(a.last))[0] ?? null;
      const rated = movies.filter((entry) => entry.movie.userRating !== null);
      const highestRated =
        rated.sort(
          (a, b) =>
            b.movie.userRating! - a.movie.userRating! || b.plays - a.plays || a.first.localeCompare(b.first),
        )[0] ?? null;
      return { movies, first: movies[0] ?? null, last: latest, highestRated };
    },
  };
}
