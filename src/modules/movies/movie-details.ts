import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import {
  castOf,
  companiesOf,
  countriesOf,
  crewOf,
  findLanguage,
  findMovieWithCollection,
  genresOf,
  languagesOf,
} from './movie-details.repository.js';
import { castCreditsOf, crewCreditsOf, findPerson } from './people.repository.js';

// The read side of a movie's data and a person's, for the pages and statistics. Image paths are TMDB's
// raw paths (`/abc.jpg`): whoever shows them picks the size and the address.

/** A person as credits show them: `id` is cinelog's, `providerId` TMDB's. */
export interface PersonRef {
  id: number;
  providerId: number;
  name: string;
  profilePath: string | null;
}

export interface MovieDetails {
  /** The serviceId. */
  id: number;
  ids: { provider: number | null; tracker: number | null; catalog: string | null; journal: string | null };
  title: string;
  originalTitle: string | null;
  releaseDate: string | null;
  tagline: string | null;
  overview: string | null;
  /** The code, with its names when a movie's spoken languages brought them. */
  originalLanguage: { code: string; englishName: string | null; name: string | null } | null;
  runtime: number | null;
  posterPath: string | null;
  backdropPath: string | null;
  externalRatings: {
    provider: { average: number | null; count: number | null };
    catalog: { average: number | null; count: number | null };
  };
  genres: { id: number; providerId: number; name: string }[];
  productionCountries: { code: string; name: string }[];
  spokenLanguages: { code: string; englishName: string | null; name: string | null }[];
  productionCompanies: {
    id: number;
    providerId: number;
    name: string;
    logoPath: string | null;
    originCountry: string | null;
  }[];
  collection: {
    id: number;
    providerId: number;
    name: string;
    posterPath: string | null;
    backdropPath: string | null;
  } | null;
  /** The people credited as Director, in crew order. */
  directors: PersonRef[];
  /** The people of the Writing department, each once, in crew order. */
  writers: PersonRef[];
  /** In billing order. */
  cast: { person: PersonRef; character: string | null; order: number }[];
  /** One entry per job, in the order jobs are shown (directors first), its people in crew order. */
  crew: { job: string; department: string; people: PersonRef[] }[];
  /** Timestamps (ISO 8601, UTC). `updatedAt`: last refresh (null until one); `detailsFetchedAt`: last asked TMDB. */
  createdAt: string;
  updatedAt: string | null;
  detailsFetchedAt: string | null;
}

/** A movie as a person's credits list it. */
export interface MovieRef {
  /** The serviceId. */
  id: number;
  providerId: number | null;
  title: string;
  releaseDate: string | null;
  posterPath: string | null;
}

export interface PersonDetails {
  id: number;
  providerId: number;
  name: string;
  profilePath: string | null;
  knownForDepartment: string | null;
  updatedAt: string;
  /** Their roles in the movies cinelog knows, newest release first (undated last). */
  cast: { movie: MovieRef; character: string | null; order: number }[];
  /** Their jobs in the movies cinelog knows, in the same order. */
  crew: { movie: MovieRef; job: string; department: string }[];
}

type Db = Kysely<Database>;

export async function readMovieDetails(db: Db, movieId: number): Promise<MovieDetails | null> {
  const movie = await findMovieWithCollection(db, movieId);
  if (!movie) return null;
  const [genres, countries, languages, companies, cast, crew] = await Promise.all([
    genresOf(db, movieId),
    countriesOf(db, movieId),
    languagesOf(db, movieId),
    companiesOf(db, movieId),
    castOf(db, movieId),
    crewOf(db, movieId),
  ]);
  const original =
    movie.original_language === null
      ? null
      : (languages.find((l) => l.code === movie.original_language) ??
        (await findLanguage(db, movie.original_language)) ?? {
          code: movie.original_language,
          english_name: null,
          name: null,
        });

  const crewByJob = new Map<string, { job: string; department: string; people: PersonRef[] }>();
  for (const credit of crew) {
    let entry = crewByJob.get(credit.job);
    if (!entry) {
      entry = { job: credit.job, department: credit.department, people: [] };
      crewByJob.set(credit.job, entry);
    }
    entry.people.push(toPersonRef(credit));
  }
  const writers = new Map<number, PersonRef>();
  for (const credit of crew) {
    if (credit.department === 'Writing' && !writers.has(credit.person_id)) {
      writers.set(credit.person_id, toPersonRef(credit));
    }
  }

  return {
    id: movie.id,
    ids: {
      provider: movie.tmdb_id,
      tracker: movie.trakt_id,
      catalog: movie.imdb_id,
      journal: movie.letterboxd_id,
    },
    title: movie.title,
    originalTitle: movie.original_title,
    releaseDate: movie.release_date,
    tagline: movie.tagline,
    overview: movie.overview,
    originalLanguage: original && {
      code: original.code,
      englishName: original.english_name,
      name: original.name,
    },
    runtime: movie.runtime,
    posterPath: movie.poster_path,
    backdropPath: movie.backdrop_path,
    externalRatings: {
      provider: { average: movie.tmdb_vote_average, count: movie.tmdb_vote_count },
      catalog: { average: movie.imdb_rating_average, count: movie.imdb_rating_count },
    },
    genres: genres.map((g) => ({ id: g.id, providerId: g.tmdb_id, name: g.name })),
    productionCountries: countries.map((c) => ({ code: c.code, name: c.name })),
    spokenLanguages: languages.map((l) => ({ code: l.code, englishName: l.english_name, name: l.name })),
    productionCompanies: companies.map((c) => ({
      id: c.id,
      providerId: c.tmdb_id,
      name: c.name,
      logoPath: c.logo_path,
      originCountry: c.origin_country,
    })),
    collection:
      movie.collection_id === null || movie.collection_tmdb_id === null || movie.collection_name === null
        ? null
        : {
            id: movie.collection_id,
            providerId: movie.collection_tmdb_id,
            name: movie.collection_name,
            posterPath: movie.collection_poster_path,
            backdropPath: movie.collection_backdrop_path,
          },
    directors: crewByJob.get('Director')?.people ?? [],
    writers: [...writers.values()],
    cast: cast.map((credit) => ({
      person: toPersonRef(credit),
      character: credit.character,
      order: credit.cast_order,
    })),
    crew: [...crewByJob.values()],
    createdAt: movie.created_at,
    updatedAt: movie.updated_at,
    detailsFetchedAt: movie.details_fetched_at,
  };
}

export async function readPerson(db: Db, personId: number): Promise<PersonDetails | null> {
  const person = await findPerson(db, personId);
  if (!person) return null;
  const [cast, crew] = await Promise.all([castCreditsOf(db, personId), crewCreditsOf(db, personId)]);
  return {
    id: person.id,
    providerId: person.tmdb_id,
    name: person.name,
    profilePath: person.profile_path,
    knownForDepartment: person.known_for_department,
    updatedAt: person.updated_at,
    cast: cast.map((credit) => ({
      movie: toMovieRef(credit),
      character: credit.character,
      order: credit.cast_order,
    })),
    crew: crew.map((credit) => ({
      movie: toMovieRef(credit),
      job: credit.job,
      department: credit.department,
    })),
  };
}

function toPersonRef(row: {
  person_id: number;
  person_tmdb_id: number;
  name: string;
  profile_path: string | null;
}): PersonRef {
  return { id: row.person_id, providerId: row.person_tmdb_id, name: row.name, profilePath: row.profile_path };
}

function toMovieRef(row: {
  movie_id: number;
  movie_tmdb_id: number | null;
  title: string;
  release_date: string | null;
  poster_path: string | null;
}): MovieRef {
  return {
    id: row.movie_id,
    providerId: row.movie_tmdb_id,
    title: row.title,
    releaseDate: row.release_date,
    posterPath: row.poster_path,
  };
}
