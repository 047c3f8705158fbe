import type { Generated, Insertable, Selectable, Updateable } from 'kysely';

/**
 * Table types, as the database stores them. Portable on purpose: timestamps are ISO-8601 UTC strings,
 * calendar dates `YYYY-MM-DD` strings and flags 0/1 integers, so SQLite and PostgreSQL return the same values.
 */
export interface Database {
  users: UsersTable;
  api_tokens: ApiTokensTable;
  movies: MoviesTable;
  genres: GenresTable;
  movie_genres: MovieGenresTable;
  watch_dates: WatchDatesTable;
  watchlist: WatchlistTable;
  ratings: RatingsTable;
  tags: TagsTable;
  entry_tags: EntryTagsTable;
  user_external_ids: UserExternalIdsTable;
  webhooks: WebhooksTable;
  webhook_events: WebhookEventsTable;
  feeds: FeedsTable;
  rate_limits: RateLimitsTable;
  sessions: SessionsTable;
  password_resets: PasswordResetsTable;
  two_factor: TwoFactorTable;
  two_factor_recovery_codes: TwoFactorRecoveryCodesTable;
  two_factor_challenges: TwoFactorChallengesTable;
  user_identities: UserIdentitiesTable;
  oidc_logins: OidcLoginsTable;
  jobs: JobsTable;
  collections: CollectionsTable;
  people: PeopleTable;
  movie_cast: MovieCastTable;
  movie_crew: MovieCrewTable;
  companies: CompaniesTable;
  movie_companies: MovieCompaniesTable;
  countries: CountriesTable;
  movie_countries: MovieCountriesTable;
  languages: LanguagesTable;
  movie_languages: MovieLanguagesTable;
  statistics_movies: StatisticsMoviesTable;
  statistics_groups: StatisticsGroupsTable;
  statistics_days: StatisticsDaysTable;
  statistics_pending: StatisticsPendingTable;
  statistics_counting: StatisticsCountingTable;
  likes: LikesTable;
  lists: ListsTable;
  list_movies: ListMoviesTable;
  media_server_connections: MediaServerConnectionsTable;
  media_server_backfill_pages: MediaServerBackfillPagesTable;
}

/** An ISO-8601 UTC timestamp such as `2024-05-01T12:30:00.000Z`. */
export type Timestamp = string;
/** A calendar date `YYYY-MM-DD`. */
export type CalendarDate = string;
/** 0 or 1. */
export type Flag = number;

export interface UsersTable {
  id: Generated<number>;
  name: string;
  email: string;
  password_hash: string;
  is_admin: Flag;
  privacy: 'private' | 'users';
  timezone: string;
  watchlist_auto_remove: Flag;
  /** How the web app shows a 1-10 rating. */
  rating_scale: Generated<'stars' | 'points'>;
  /** A read-only page of the user's history for anyone with its link. */
  public_profile: Generated<Flag>;
  /** Bumped by every write to the user's lists (plays, watchlist, ratings, settings they show). */
  data_version: Generated<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ApiTokensTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  token_hash: string;
  display_prefix: string;
  created_at: Timestamp;
  last_used_at: Timestamp | null;
  expires_at: Timestamp | null;
  revoked_at: Timestamp | null;
}

export interface MoviesTable {
  id: Generated<number>;
  title: string;
  original_title: string | null;
  release_date: CalendarDate | null;
  tagline: string | null;
  overview: string | null;
  original_language: string | null;
  runtime: number | null;
  poster_path: string | null;
  tmdb_id: number | null;
  trakt_id: number | null;
  imdb_id: string | null;
  letterboxd_id: string | null;
  tmdb_vote_average: number | null;
  tmdb_vote_count: number | null;
  imdb_rating_average: number | null;
  imdb_rating_count: number | null;
  /** When the IMDb rating last changed (the ratings import); kept strictly increasing, see catalogVersion. */
  imdb_rating_updated_at: Timestamp | null;
  created_at: Timestamp;
  /** Moved by every refresh from the provider (not by the first fetch); the spec's `updatedAt`. */
  updated_at: Timestamp | null;
  backdrop_path: string | null;
  collection_id: number | null;
  /** When TMDB was last asked for the movie's details (a 404 counts); null: never, stored before 0009. */
  details_fetched_at: Timestamp | null;
}

export interface GenresTable {
  id: Generated<number>;
  tmdb_id: number;
  name: string;
}

export interface MovieGenresTable {
  movie_id: number;
  genre_id: number;
  position: number;
}

export interface WatchDatesTable {
  id: Generated<number>;
  user_id: number;
  movie_id: number;
  /** null: a play whose date is unknown. One row per (user, movie, watched_at), the null date included. */
  watched_at: CalendarDate | null;
  plays: number;
  comment: string | null;
  position: number;
  /** The entry's own 1-10 rating (the diary's); null: none. The movie's rating is in `ratings`. */
  rating: Generated<number | null>;
  /** 1 or 0 as the user or a file said; null: derived when read (an earlier dated entry exists). */
  rewatch: Generated<Flag | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A user's tag of diary entries: `name` as first written, `key` its case-folded form (unique per user). */
export interface TagsTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  key: string;
  created_at: Timestamp;
}

/** A diary entry (a `watch_dates` row) has a tag. */
export interface EntryTagsTable {
  tag_id: number;
  watch_date_id: number;
}

export interface WatchlistTable {
  id: Generated<number>;
  user_id: number;
  movie_id: number;
  added_at: Timestamp;
}

export interface RatingsTable {
  user_id: number;
  movie_id: number;
  rating: number;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A user's heart on a movie, apart from any rating; `liked_at` is when it was first given. */
export interface LikesTable {
  user_id: number;
  movie_id: number;
  liked_at: Timestamp;
}

/** Who may read a list besides its owner: no one, any signed-in user, or anyone (library.rules.ts). */
export type ListVisibility = 'private' | 'users' | 'public';

/** A user's named list of movies. */
export interface ListsTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  description: string | null;
  /** 1: the positions are a ranking (shown as numbers). */
  ranked: Flag;
  visibility: ListVisibility;
  created_at: Timestamp;
  /** Moved by every change to the list or its movies. */
  updated_at: Timestamp;
}

/** A movie on a list: each once, at positions 1..n without gaps. */
export interface ListMoviesTable {
  list_id: number;
  movie_id: number;
  position: number;
  note: string | null;
  added_at: Timestamp;
}

/** A saga (TMDB's `belongs_to_collection`); movies point to it with `collection_id`. */
export interface CollectionsTable {
  id: Generated<number>;
  tmdb_id: number;
  name: string;
  poster_path: string | null;
  backdrop_path: string | null;
}

/** A TMDB person, stored once however many movies they are in. */
export interface PeopleTable {
  id: Generated<number>;
  tmdb_id: number;
  name: string;
  profile_path: string | null;
  known_for_department: string | null;
  updated_at: Timestamp;
}

/** A place on a movie's bill: `cast_order` 0 is the top. One person may hold several (several roles). */
export interface MovieCastTable {
  movie_id: number;
  person_id: number;
  character: string | null;
  cast_order: number;
  /** 1 on a person's first place on the movie's bill, 0 on their further places (other roles). */
  first_place: Generated<number>;
}

/** One job of one person in a movie; `position` orders the movie's crew as it is shown. */
export interface MovieCrewTable {
  movie_id: number;
  person_id: number;
  department: string;
  job: string;
  position: number;
}

export interface CompaniesTable {
  id: Generated<number>;
  tmdb_id: number;
  name: string;
  logo_path: string | null;
  origin_country: string | null;
}

export interface MovieCompaniesTable {
  movie_id: number;
  company_id: number;
  position: number;
}

/** ISO 3166-1 code and TMDB's English name. */
export interface CountriesTable {
  code: string;
  name: string;
}

export interface MovieCountriesTable {
  movie_id: number;
  country_code: string;
  position: number;
}

/** ISO 639-1 code, English and native names. */
export interface LanguagesTable {
  code: string;
  english_name: string | null;
  name: string | null;
}

/** The movie's spoken languages. */
export interface MovieLanguagesTable {
  movie_id: number;
  language_code: string;
  position: number;
}

/**
 * The statistics' aggregates (migration 0017, library/statistics-aggregates.ts). A scope is a user's
 * plays of all time (0, undated ones included) or those dated in one year (the year).
 */
export interface StatisticsMoviesTable {
  user_id: number;
  movie_id: number;
  scope: number;
  /** The watch-date rows and plays of the movie in the scope. */
  entries: number;
  plays: number;
  /** Its entries in the scope that are rewatches (the diary's rule; migration 0021). */
  rewatches: number;
  /**
   * Its rating in the scope: the own rating of its latest entry there that has one, else the movie's
   * rating; null: none (migration 0021).
   */
  rating: number | null;
}

/**
 * Movies and plays of a user's scope per group: `total` (item '', with its minutes), `genre` (TMDB id),
 * `language`, `country` (codes), `decade` (first three digits of the year), `director`, `actor` (TMDB ids).
 */
export interface StatisticsGroupsTable {
  user_id: number;
  kind:
    | 'total'
    | 'genre'
    | 'language'
    | 'country'
    | 'decade'
    | 'director'
    | 'actor'
    /** Movies of each rating (item '1' to '10'), and the scope's rewatches (item '', in movies and plays): migration 0021. */
    | 'rating'
    | 'rewatches';
  scope: number;
  item: string;
  movies: number;
  plays: number;
  /** Runtime × plays, for `total`; 0 for the others. */
  minutes: number;
}

/** Entries and plays of a user's calendar day. */
export interface StatisticsDaysTable {
  user_id: number;
  watched_at: CalendarDate;
  entries: number;
  plays: number;
}

/** An entry a library write changed since the user's aggregates were last brought up to date. */
export interface StatisticsPendingTable {
  user_id: number;
  /** When the write noted it (its time, ISO). */
  noted_at: Timestamp;
  movie_id: number;
  /** '' for the entry of plays with an unknown date. */
  watched_at: string;
}

/** An entry a catch-up of the user's statistics is counting again (once each, keyed by movie). */
export interface StatisticsCountingTable {
  user_id: number;
  movie_id: number;
  /** '' for the entry of plays with an unknown date. */
  watched_at: string;
}

export type UserRow = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
export type UserUpdate = Updateable<UsersTable>;
export type ApiTokenRow = Selectable<ApiTokensTable>;
export type MovieRow = Selectable<MoviesTable>;
export type NewMovie = Insertable<MoviesTable>;

export interface WebhooksTable {
  id: Generated<number>;
  user_id: number;
  server: 'plex' | 'jellyfin' | 'emby' | 'kodi';
  uuid: string;
  scrobble_watches: Flag;
  scrobble_ratings: Flag;
  /** JSON array of media-server user names whose reports count; null: everyone's. */
  account_filter: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type WebhookOutcome = 'counted' | 'ignored' | 'duplicate' | 'unmatched' | 'rejected';

export interface WebhookEventsTable {
  id: Generated<number>;
  user_id: number;
  server: 'plex' | 'jellyfin' | 'emby' | 'kodi';
  received_at: Timestamp;
  event: string | null;
  account: string | null;
  outcome: WebhookOutcome;
  reason: string | null;
  movie_id: number | null;
  movie_title: string | null;
  event_at: Timestamp | null;
  watch_date: CalendarDate | null;
  payload: string | null;
}

export type WebhookRow = Selectable<WebhooksTable>;

/** A feed URL of a user's own (migration 0023): the random UUID in its path is the secret. */
export interface FeedsTable {
  id: Generated<number>;
  user_id: number;
  kind: 'radarr';
  uuid: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type FeedRow = Selectable<FeedsTable>;
export type NewWebhookEvent = Insertable<WebhookEventsTable>;

export interface RateLimitsTable {
  key: string;
  hits: number;
  reset_at: Timestamp;
}

/** A web app sign-in; the cookie holds the secret, the table only its SHA-256 hash. */
export interface SessionsTable {
  id: Generated<number>;
  user_id: number;
  token_hash: string;
  /** 1: "remember me" (a cookie that outlives the browser); 0: a browser-session cookie. */
  persistent: Flag;
  created_at: Timestamp;
  expires_at: Timestamp;
}

/** A forgot-password link: single use (used_at), expires an hour after it was sent. */
export interface PasswordResetsTable {
  id: Generated<number>;
  user_id: number;
  token_hash: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: Timestamp | null;
}

/**
 * Two-factor sign-in (TOTP) of a user who has it on or is setting it up. Both secrets are sealed with
 * the server key (modules/auth/secret-box.ts), never stored in plaintext.
 */
export interface TwoFactorTable {
  user_id: number;
  /** The sealed secret in use; null while setting up. */
  secret: string | null;
  enabled_at: Timestamp | null;
  /** The last accepted time step (unix time / 30 s): a code is accepted once. */
  last_step: number | null;
  /** The sealed secret being set up, until a code from it is confirmed. */
  pending_secret: string | null;
  pending_at: Timestamp | null;
}

/** A single-use recovery code: only its SHA-256 hash; deleted when used. */
export interface TwoFactorRecoveryCodesTable {
  id: Generated<number>;
  user_id: number;
  code_hash: string;
  created_at: Timestamp;
}

/** A sign-in waiting for its code: the cookie holds the secret, the table only its SHA-256 hash. */
export interface TwoFactorChallengesTable {
  id: Generated<number>;
  user_id: number;
  token_hash: string;
  /** "Remember me" of the sign-in form, for the session the code starts. */
  persistent: Flag;
  /** Where to go once signed in (already checked as a local path). */
  next: string;
  /** Wrong codes so far. */
  failures: Generated<number>;
  created_at: Timestamp;
  expires_at: Timestamp;
}

/** An account's link to an OpenID issuer's subject (`sub`). */
export interface UserIdentitiesTable {
  id: Generated<number>;
  user_id: number;
  issuer: string;
  subject: string;
  email: string | null;
  created_at: Timestamp;
  last_used_at: Timestamp | null;
}

/** An OpenID sign-in between the redirect to the issuer and its callback (single use). */
export interface OidcLoginsTable {
  id: Generated<number>;
  token_hash: string;
  state: string;
  nonce: string;
  code_verifier: string;
  /** Set when a signed-in user links their account. */
  user_id: number | null;
  next: string;
  created_at: Timestamp;
  expires_at: Timestamp;
}

export type TwoFactorRow = Selectable<TwoFactorTable>;

export type JobState = 'queued' | 'running' | 'done' | 'failed';

/** A movie's id on another site as a user's import gave it: the user's alone (imports, exports). */
export interface UserExternalIdsTable {
  user_id: number;
  /** `trakt` (a Trakt id, as text) or `letterboxd` (a film slug). */
  source: 'trakt' | 'letterboxd';
  external_id: string;
  movie_id: number;
  created_at: Timestamp;
}

export interface JobsTable {
  id: Generated<number>;
  kind: string;
  key: string | null;
  /** JSON. */
  payload: string;
  state: JobState;
  attempts: Generated<number>;
  max_attempts: number;
  run_at: Timestamp;
  locked_by: string | null;
  locked_until: Timestamp | null;
  progress_done: number | null;
  progress_total: number | null;
  result: string | null;
  error: string | null;
  created_at: Timestamp;
  /** Whose job it is, for jobs a user started (imports); null for the instance's own. */
  user_id: number | null;
  started_at: Timestamp | null;
  finished_at: Timestamp | null;
}

export type JobRow = Selectable<JobsTable>;

/** A user's saved connection to a Plex, Jellyfin or Emby server, for the backfill (issue 31). */
export interface MediaServerConnectionsTable {
  id: Generated<number>;
  user_id: number;
  server: 'plex' | 'jellyfin' | 'emby';
  url: string;
  /** The token or API key, sealed with the server key (secret-box.ts); never in plaintext. */
  token: string;
  server_user: string | null;
  /** The periodic sync every this many hours; null: off. */
  sync_hours: number | null;
  last_sync_at: Timestamp | null;
  last_job_id: number | null;
  /** The last backfill's summary (JSON). */
  last_result: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A page of played movies a backfill job has fetched (JSON), kept until the job ends. */
export interface MediaServerBackfillPagesTable {
  job_id: number;
  seq: number;
  next_cursor: string | null;
  total: number | null;
  movies: string;
  created_at: Timestamp;
}
