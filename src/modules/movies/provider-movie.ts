import type { TmdbMovie } from '../../integrations/tmdb/tmdb.types.js';

// What cinelog keeps of a TMDB movie: the rules, apart from the tables that store it.

/** Cast places kept per movie: the top of the bill, far more than any page shows. */
export const MAX_CAST = 100;
/** Crew credits kept per movie, after the jobs below are picked. */
export const MAX_CREW = 100;
/** Genres, countries, languages and companies kept per movie (TMDB lists a handful). */
const MAX_LIST = 100;

/**
 * The crew jobs kept, in the order a page lists them; every other job of the Writing department is
 * kept too, after these. The rest of a crew (grips, accountants, stunts) is left out: TMDB lists
 * hundreds of credits for a big film, and neither the pages nor the statistics show them.
 */
export const CREW_JOBS: readonly string[] = [
  'Director',
  'Co-Director',
  'Screenplay',
  'Writer',
  'Story',
  'Novel',
  'Original Story',
  'Characters',
  'Author',
  'Book',
  'Producer',
  'Co-Producer',
  'Executive Producer',
  'Original Music Composer',
  'Composer',
  'Music',
  'Director of Photography',
  'Editor',
  'Casting',
  'Production Design',
  'Costume Design',
];
const WRITING = 'Writing';
/** The Writing department's other jobs (Adaptation, Teleplay...) come right after the named ones. */
const OTHER_WRITING_RANK = CREW_JOBS.indexOf('Book') + 0.5;

export interface ProviderPerson {
  tmdbId: number;
  name: string;
  profilePath: string | null;
  knownForDepartment: string | null;
}

/** Everything stored of one TMDB movie, in the order it is shown. */
export interface ProviderMovieData {
  movie: {
    tmdb_id: number;
    title: string;
    original_title: string | null;
    release_date: string | null;
    tagline: string | null;
    overview: string | null;
    original_language: string | null;
    runtime: number | null;
    poster_path: string | null;
    backdrop_path: string | null;
    imdb_id: string | null;
    tmdb_vote_average: number | null;
    tmdb_vote_count: number | null;
  };
  collection: { tmdbId: number; name: string; posterPath: string | null; backdropPath: string | null } | null;
  genres: { tmdbId: number; name: string }[];
  countries: { code: string; name: string }[];
  languages: { code: string; englishName: string | null; name: string | null }[];
  companies: { tmdbId: number; name: string; logoPath: string | null; originCountry: string | null }[];
  /** null: TMDB sent no credits, so the stored ones stay; empty lists: the movie has none. */
  credits: {
    /** Each person once, whether in the cast, the crew or both. */
    people: ProviderPerson[];
    /** In billing order; `order` is the place on the bill from 0, without gaps. */
    cast: { personTmdbId: number; character: string | null; order: number }[];
    /** Kept jobs only, in the order of CREW_JOBS, each person once per job. */
    crew: { personTmdbId: number; department: string; job: string }[];
  } | null;
}

export function fromProvider(movie: TmdbMovie): ProviderMovieData {
  return {
    movie: {
      tmdb_id: movie.id,
      title: movie.title,
      original_title: movie.original_title,
      release_date: movie.release_date,
      tagline: movie.tagline,
      overview: movie.overview,
      original_language: movie.original_language,
      runtime: movie.runtime,
      poster_path: movie.poster_path,
      backdrop_path: movie.backdrop_path,
      imdb_id: movie.imdb_id,
      tmdb_vote_average: movie.vote_average,
      tmdb_vote_count: movie.vote_count,
    },
    collection: movie.belongs_to_collection && {
      tmdbId: movie.belongs_to_collection.id,
      name: movie.belongs_to_collection.name,
      posterPath: movie.belongs_to_collection.poster_path,
      backdropPath: movie.belongs_to_collection.backdrop_path,
    },
    genres: firstOfEach(movie.genres, (g) => g.id, MAX_LIST).map((g) => ({ tmdbId: g.id, name: g.name })),
    countries: firstOfEach(movie.production_countries, (c) => c.iso_3166_1, MAX_LIST).map((c) => ({
      code: c.iso_3166_1,
      name: c.name,
    })),
    languages: firstOfEach(movie.spoken_languages, (l) => l.iso_639_1, MAX_LIST).map((l) => ({
      code: l.iso_639_1,
      englishName: l.english_name,
      name: l.name,
    })),
    companies: firstOfEach(movie.production_companies, (c) => c.id, MAX_LIST).map((c) => ({
      tmdbId: c.id,
      name: c.name,
      logoPath: c.logo_path,
      originCountry: c.origin_country,
    })),
    credits: movie.credits && selectCredits(movie.credits),
  };
}

function selectCredits(credits: NonNullable<TmdbMovie['credits']>): ProviderMovieData['credits'] {
  // Stable sorts: equal (or missing) orders keep TMDB's sequence.
  const cast = credits.cast
    .map((credit, index) => ({ credit, index }))
    .sort((a, b) => (a.credit.order ?? Infinity) - (b.credit.order ?? Infinity) || a.index - b.index)
    .slice(0, MAX_CAST)
    .map(({ credit }) => credit);

  const rank = (job: string, department: string) => {
    const at = CREW_JOBS.indexOf(job);
    if (at >= 0) return at;
    return department === WRITING ? OTHER_WRITING_RANK : -1;
  };
  const crew = firstOfEach(
    credits.crew
      .map((credit, index) => ({ credit, index, rank: rank(credit.job, credit.department) }))
      .filter(({ rank }) => rank >= 0)
      .sort((a, b) => a.rank - b.rank || a.index - b.index)
      .map(({ credit }) => credit),
    (credit) => `${credit.id} ${credit.job}`,
    MAX_CREW,
  );

  const people = firstOfEach([...cast, ...crew], (credit) => credit.id, MAX_CAST + MAX_CREW).map(
    (credit) => ({
      tmdbId: credit.id,
      name: credit.name,
      profilePath: credit.profile_path,
      knownForDepartment: credit.known_for_department,
    }),
  );
  return {
    people,
    cast: cast.map((credit, order) => ({ personTmdbId: credit.id, character: credit.character, order })),
    crew: crew.map((credit) => ({
      personTmdbId: credit.id,
      department: credit.department,
      job: credit.job,
    })),
  };
}

/** The first item of each key, in order, at most `max` of them. */
function firstOfEach<T>(items: readonly T[], key: (item: T) => unknown, max: number): T[] {
  const seen = new Set<unknown>();
  const kept: T[] = [];
  for (const item of items) {
    if (kept.length === max) break;
    const k = key(item);
    if (seen.has(k)) continue;
    seen.add(k);
    kept.push(item);
  }
  return kept;
}
