import type { MovieRow } from '../../db/schema.js';
import { utcDateOf } from '../../shared/dates.js';
import type { Movie } from './movies.schemas.js';

/** The movie columns a list query selects, plus the list owner's rating. */
export type MovieWithRating = Omit<MovieRow, 'id' | 'imdb_rating_updated_at'> & {
  movie_id: number;
  user_rating: number | null;
};

/** Poster size used for `posterPath`: large enough for a list, small enough to load fast. */
const POSTER_SIZE = 'w342';

export function toMovie(row: MovieWithRating, imageBaseUrl: string): Movie {
  return {
    title: row.title,
    originalTitle: row.original_title,
    releaseDate: row.release_date,
    tagline: row.tagline,
    overview: row.overview,
    originalLanguage: row.original_language,
    runtime: row.runtime,
    posterPath: row.poster_path ? `${imageBaseUrl}/${POSTER_SIZE}${row.poster_path}` : null,
    ids: {
      service: row.movie_id,
      provider: row.tmdb_id,
      tracker: row.trakt_id,
      catalog: row.imdb_id,
      journal: row.letterboxd_id,
    },
    userRating: row.user_rating,
    externalRatings: {
      provider: { average: row.tmdb_vote_average, count: row.tmdb_vote_count },
      catalog: { average: row.imdb_rating_average, count: row.imdb_rating_count },
    },
    updatedAt: row.updated_at === null ? null : utcDateOf(row.updated_at),
    createdAt: utcDateOf(row.created_at),
  };
}
