/** What cinelog reads of a TMDB `/movie/{id}` response. Empty strings arrive as null. */
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
  /** The movie, or null when TMDB does not know the id. */
  getMovie(tmdbId: number): Promise<TmdbMovie | null>;
  /** `year` filters on the primary release year (TMDB's `primary_release_year`). */
  searchMovies(query: { query: string; page: number; year?: number | undefined }): Promise<TmdbSearchPage>;
  /** Movies TMDB links to an IMDb id (`tt…`); empty when none. */
  findByImdbId(imdbId: string): Promise<TmdbSearchResult[]>;
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
