import type { MovieRow } from '../../db/schema.js';
import { utcDateOf } from '../../shared/dates.js';
import type { MovieDetails, PersonRef } from './movie-details.js';
import type { MovieDetailsResponse } from './movie-details.schemas.js';
import type { Movie } from './movies.schemas.js';

/** The movie columns a list query selects (the spec's Movie, no more), plus the list owner's rating. */
export type MovieWithRating = Omit<
  MovieRow,
  'id' | 'backdrop_path' | 'collection_id' | 'details_fetched_at' | 'imdb_rating_updated_at'
> & {
  movie_id: number;
  user_rating: number | null;
};

/** Poster size used for `posterPath`: large enough for a list, small enough to load fast. */
const POSTER_SIZE = 'w342';

/** Image sizes TMDB serves, per use: enough for a detail page, small enough for a list of faces. */
const IMAGE_SIZES = { backdrop: 'w780', profile: 'w185', logo: 'w92' } as const;

const imageUrl = (imageBaseUrl: string, size: string, path: string | null) =>
  path ? `${imageBaseUrl}/${size}${path}` : null;

/** A person's picture as every API answer gives it (`profilePath`): an absolute URL, or null. */
export const profileImageUrl = (imageBaseUrl: string, path: string | null) =>
  imageUrl(imageBaseUrl, IMAGE_SIZES.profile, path);

export function toMovie(row: MovieWithRating, imageBaseUrl: string): Movie {
  return {
    title: row.title,
    originalTitle: row.original_title,
    releaseDate: row.release_date,
    tagline: row.tagline,
    overview: row.overview,
    originalLanguage: row.original_language,
    runtime: row.runtime,
    posterPath: imageUrl(imageBaseUrl, POSTER_SIZE, row.poster_path),
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

export function toMovieDetailsResponse(details: MovieDetails, imageBaseUrl: string): MovieDetailsResponse {
  const person = (ref: PersonRef) => ({
    ...ref,
    profilePath: imageUrl(imageBaseUrl, IMAGE_SIZES.profile, ref.profilePath),
  });
  return {
    ids: { service: details.id, ...details.ids },
    title: details.title,
    originalTitle: details.originalTitle,
    releaseDate: details.releaseDate,
    tagline: details.tagline,
    overview: details.overview,
    originalLanguage: details.originalLanguage,
    runtime: details.runtime,
    posterPath: imageUrl(imageBaseUrl, POSTER_SIZE, details.posterPath),
    backdropPath: imageUrl(imageBaseUrl, IMAGE_SIZES.backdrop, details.backdropPath),
    externalRatings: details.externalRatings,
    genres: details.genres,
    productionCountries: details.productionCountries,
    spokenLanguages: details.spokenLanguages,
    productionCompanies: details.productionCompanies.map((company) => ({
      ...company,
      logoPath: imageUrl(imageBaseUrl, IMAGE_SIZES.logo, company.logoPath),
    })),
    collection: details.collection && {
      ...details.collection,
      posterPath: imageUrl(imageBaseUrl, POSTER_SIZE, details.collection.posterPath),
      backdropPath: imageUrl(imageBaseUrl, IMAGE_SIZES.backdrop, details.collection.backdropPath),
    },
    directors: details.directors.map(person),
    writers: details.writers.map(person),
    cast: details.cast.map((credit) => ({ ...credit, person: person(credit.person) })),
    crew: details.crew.map((job) => ({ ...job, people: job.people.map(person) })),
    updatedAt: details.updatedAt === null ? null : utcDateOf(details.updatedAt),
    createdAt: utcDateOf(details.createdAt),
  };
}
