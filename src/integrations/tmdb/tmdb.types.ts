/** What cinelog reads of a TMDB `/movie/{id}` response. */
export interface TmdbMovie {
  id: number;
  title: string;
  original_title: string | null;
  release_date: string | null;
  tagline: string | null;
  overview: string | null;
  original_language: string | null;
  runtime: number | null;
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

/** The movie data provider, as the rest of cinelog sees it. */
export interface TmdbClient {
  /** The movie, or null when TMDB does not know the id. */
  getMovie(tmdbId: number): Promise<TmdbMovie | null>;
  searchMovies(query: { query: string; page: number; year?: number | undefined }): Promise<TmdbSearchPage>;
  /** Movies TMDB links to an IMDb id (`tt…`); empty when none. */
  findByImdbId(imdbId: string): Promise<TmdbSearchResult[]>;
}
