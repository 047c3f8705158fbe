/**
 * What cinelog reads of a TMDB `/movie/{id}?append_to_response=credits` response. Empty strings arrive
 * as null, text never holds a NUL character, and list entries without an id or a name are left out.
 */
export interface TmdbMovie {
  id: number;
  title: string;
  original_title: string | null;
  /** `YYYY-MM-DD`, or null when TMDB has none (it sends `""`) or sends something else. */
  release_date: string | null;
  tagline: string | null;
  overview: string | null;
  original_language: string | null;
  /** Minutes; null when unknown (TMDB sends 0 or null). */
  runtime: number | null;
  /** TMDB's raw image path such as `/abc.jpg`. */
  poster_path: string | null;
  imdb_id: string | null;
  vote_average: number | null;
  vote_count: number | null;
  genres: { id: number; name: string }[];
  backdrop_path: string | null;
  belongs_to_collection: TmdbCollection | null;
  production_companies: TmdbCompany[];
  /** ISO 3166-1 codes (upper case) with TMDB's English names. */
  production_countries: { iso_3166_1: string; name: string }[];
  /** ISO 639-1 codes (lower case); `english_name` is missing from older responses. */
  spoken_languages: { iso_639_1: string; english_name: string | null; name: string | null }[];
  /** null when the response carries no `credits` object at all (not asked, or TMDB left it out). */
  credits: { cast: TmdbCastCredit[]; crew: TmdbCrewCredit[] } | null;
}

export interface TmdbCollection {
  id: number;
  name: string;
  poster_path: string | null;
  backdrop_path: string | null;
}

export interface TmdbCompany {
  id: number;
  name: string;
  logo_path: string | null;
  origin_country: string | null;
}

/** The person fields of a credit, the same in the cast and the crew. */
export interface TmdbPerson {
  id: number;
  name: string;
  profile_path: string | null;
  known_for_department: string | null;
}

export interface TmdbCastCredit extends TmdbPerson {
  character: string | null;
  /** Billing order, 0 first; null when TMDB gives none. */
  order: number | null;
}

export interface TmdbCrewCredit extends TmdbPerson {
  department: string;
  job: string;
}

/** One result of `/search/movie` or `/find`. */
export interface TmdbSearchResult {
  id: number;
  title: string;
  original_title: string | null;
  release_date: string | null;
  overview: string | null;
  original_language: string | null;
  poster_path: string | null;
}

export interface TmdbSearchPage {
  page: number;
  results: TmdbSearchResult[];
  total_pages: number;
  total_results: number;
}

/** The movie data provider, as the rest of cinelog sees it. Methods throw `TmdbError` when TMDB fails. */
export interface TmdbClient {
  /** The movie with its credits (`append_to_response=credits`), or null when TMDB does not know the id. */
  getMovie(tmdbId: number): Promise<TmdbMovie | null>;
  /** `year` filters on the primary release year (TMDB's `primary_release_year`). */
  searchMovies(query: { query: string; page: number; year?: number | undefined }): Promise<TmdbSearchPage>;
  /** Movies TMDB links to an IMDb id (`tt…`); empty when none. */
  findByImdbId(imdbId: string): Promise<TmdbSearchResult[]>;
  /** Resolves when TMDB answers with this key (its `/configuration`); TmdbError otherwise. */
  ping(): Promise<void>;
}

/**
 * TMDB could not answer: the key was rejected (status 401), it kept failing after the retries (429,
 * 5xx), it was unreachable or too slow (status null), or it answered something unusable. The message
 * never contains the API key.
 */
export class TmdbError extends Error {
  override name = 'TmdbError';
  constructor(
    /** The HTTP status of TMDB's last answer, or null when none arrived. */
    readonly status: number | null,
    message: string,
  ) {
    super(message);
  }
}
