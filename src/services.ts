// The one composition root (docs/architecture.md): every service is built here, once, for the server
// (app.ts), the command line (cli/context.ts) and the job runner, whose kinds are registered here too.
import type { Kysely } from 'kysely';
import type { Config } from './config.js';
import { databaseHitCounter, type HitCounter } from './db/rate-limit-store.js';
import type { Database } from './db/schema.js';
import { createMailer, type Mailer } from './integrations/mail/mailer.js';
import { createOutbox, type Outbox } from './integrations/mail/outbox.js';
import { mediaServerClient } from './integrations/media-servers/media-server.client.js';
import type { TmdbClient } from './integrations/tmdb/tmdb.types.js';
import { type BackgroundJobs, createBackgroundJobs } from './jobs/background-jobs.js';
import { type ApiTokensService, createApiTokensService } from './modules/auth/api-tokens.service.js';
import { type AuthGuards, createAuthGuards } from './modules/auth/auth.guards.js';
import { endSignInsOnChange } from './modules/auth/credentials.js';
import { createForwardAuthService, type ForwardAuthService } from './modules/auth/forward-auth.service.js';
import { createOidcService, type OidcService } from './modules/auth/oidc.service.js';
import type { OidcProvider } from './modules/auth/oidc-provider.js';
import {
  createPasswordResetsService,
  type PasswordResetsService,
} from './modules/auth/password-resets.service.js';
import { secretKeySource } from './modules/auth/secret-box.js';
import { createSessionsService, type SessionsService } from './modules/auth/sessions.service.js';
import { createSignInService, type SignInService } from './modules/auth/sign-in.service.js';
import { createTwoFactorService, type TwoFactorService } from './modules/auth/two-factor.service.js';
import { backfillJobs } from './modules/backfill/backfill.jobs.js';
import {
  type BackfillService,
  createBackfillService,
  type MediaServerClientFactory,
} from './modules/backfill/backfill.service.js';
import { backupJobs } from './modules/backups/backups.jobs.js';
import { createExportsService, type ExportsService } from './modules/exports/export.service.js';
import { createFeedsService, type FeedsService } from './modules/feeds/feeds.service.js';
import { imageJobs } from './modules/images/images.jobs.js';
import { type ImagesService, imagesServiceFor, publicImageBaseUrl } from './modules/images/images.service.js';
import { createImportsService, type ImportsService } from './modules/imports/import.service.js';
import { createImportUploads, type ImportUploads } from './modules/imports/import-uploads.js';
import { importJobs } from './modules/imports/imports.jobs.js';
import { createLibrary, type Library } from './modules/library/library.service.js';
import { statisticsFollowCatalog } from './modules/library/statistics-aggregates.js';
import { imdbRatingsJobs } from './modules/movies/imdb-ratings.jobs.js';
import { movieJobs } from './modules/movies/movies.jobs.js';
import { createMoviesService, type MoviesService } from './modules/movies/movies.service.js';
import { createScrobbleService, type ScrobbleService } from './modules/scrobble/scrobble.service.js';
import { createWebhooksService, type WebhooksService } from './modules/scrobble/webhooks.service.js';
import { createStatisticsService, type StatisticsService } from './modules/statistics/statistics.service.js';
import { createYearReviewService, type YearReviewService } from './modules/statistics/year-review.service.js';
import { createStatusService, type StatusService } from './modules/status/status.service.js';
import { createUsersService, type UsersService } from './modules/users/users.service.js';
import type { Clock } from './shared/clock.js';

/** Where the services report what goes wrong after an answer (a mail not sent, a job that failed). */
export interface ServiceLog {
  error(object: object, message: string): void;
  info?(object: object, message: string): void;
}

export interface ServicesDeps {
  config: Config;
  db: Kysely<Database>;
  /** The movie data provider; null when TMDB_API_KEY is not set. */
  tmdb: TmdbClient | null;
  clock: Clock;
  /**
   * Sends the notices and forgot-password mails. Absent: one from SMTP_URL (none when it is not set),
   * closed by `close`; given (tests, or null for none): the caller's to close.
   */
  mailer?: Mailer | null | undefined;
  /** Absent (the command line, which sends no mail): jobs' failures are the command's to report. */
  log?: ServiceLog | undefined;
  /** How many jobs this process runs at once (JOBS_CONCURRENCY for the server; 1 for `cinelog jobs run`). */
  jobsConcurrency: number;
  /** The Plex, Jellyfin and Emby clients of the backfill; absent: the real ones. */
  mediaServers?: MediaServerClientFactory | undefined;
  /** The OpenID provider found at start (OIDC_ISSUER_URL; app.ts); absent: no single sign-on. */
  oidcProvider?: OidcProvider | null | undefined;
}

export interface Services {
  clock: Clock;
  mailer: Mailer | null;
  /** Mail sent after the answer. */
  outbox: Outbox;
  /** The rate limits' counters (sign-in, two-factor codes, webhooks). */
  hits: HitCounter;
  /** The root of the image URLs cinelog hands out: its own /images with the image cache on. */
  imageBaseUrl: string;
  users: UsersService;
  tokens: ApiTokensService;
  sessions: SessionsService;
  guards: AuthGuards;
  signIn: SignInService;
  /** The reverse proxy's sign-in (AUTH_PROXY_HEADER); null when it is off. */
  forwardAuth: ForwardAuthService | null;
  passwordResets: PasswordResetsService;
  twoFactor: TwoFactorService;
  /** Single sign-on through an OpenID provider; null when OIDC_ISSUER_URL is not set. */
  oidc: OidcService | null;
  /** What users keep: the one write entry point and the read side. */
  library: Library;
  statistics: StatisticsService;
  yearReview: YearReviewService;
  /** The catalogue (TMDB through TMDB_API_KEY, when set). */
  movies: MoviesService;
  scrobble: ScrobbleService;
  webhooks: WebhooksService;
  /** The feed URLs (the watchlist as a Radarr list): created, regenerated, read. */
  feeds: FeedsService;
  exports: ExportsService;
  imports: ImportsService;
  /** Uploaded import files: checked, queued as jobs, their status. */
  uploads: ImportUploads;
  /** Connections to Plex, Jellyfin and Emby (sealed tokens), and their backfills of past plays. */
  backfill: BackfillService;
  /** The image cache (IMAGE_CACHE); null when it is off. */
  images: ImagesService | null;
  status: StatusService;
  /** The job queue, and this process's runner (started by main.ts or `cinelog jobs run`, never here). */
  jobs: BackgroundJobs;
  /** Stops the runner (running jobs stop or go back to the queue), waits for mails on their way. */
  close(): Promise<void>;
}

export function createServices(deps: ServicesDeps): Services {
  const { config, db, clock, log } = deps;
  const mailer =
    deps.mailer !== undefined
      ? deps.mailer
      : config.smtpUrl
        ? createMailer(config.smtpUrl, config.mailFrom)
        : null;
  const outbox = createOutbox(mailer, log ?? { error() {} });
  const hits = databaseHitCounter(db, clock);
  const imageBaseUrl = publicImageBaseUrl(config);

  const users = createUsersService({
    db,
    clock,
    defaultTimezone: config.timezone,
    notices: { outbox, appUrl: config.appUrl },
    credentials: endSignInsOnChange,
  });
  const tokens = createApiTokensService({ db, clock });
  const sessions = createSessionsService({ db, clock });
  const library = createLibrary({ db, clock, imageBaseUrl });
  const movies = createMoviesService({
    db,
    clock,
    tmdb: deps.tmdb,
    marks: library.marks,
    catalog: statisticsFollowCatalog,
  });
  const webhooks = createWebhooksService({ db, clock, appUrl: config.appUrl });
  const imports = createImportsService({ library, movies, users, clock });

  // The queue first: what queues jobs is built with it, and the job kinds with what was built.
  const background = createBackgroundJobs({ db, clock });
  const queue = background.queue;
  const uploads = createImportUploads({ imports, queue, importsDir: config.importsDir });
  const images = config.imageCache ? imagesServiceFor(db, config, queue) : null;
  const keys = secretKeySource({ secretKey: config.secretKey, databaseUrl: config.databaseUrl });
  const backfill = createBackfillService({
    db,
    clock,
    keys,
    imports,
    queue,
    clientFor: deps.mediaServers ?? mediaServerClient,
  });
  const jobs = background.run(
    [
      importJobs({ imports, users, uploads }),
      backfillJobs({ backfill, users }),
      movieJobs({ db, clock, movies, queue, refreshDays: config.metadataRefreshDays }),
      imdbRatingsJobs({ db, clock, url: config.imdbRatingsUrl }),
      ...(images ? [imageJobs({ db, images })] : []),
      ...(config.backupDir
        ? [
            backupJobs({
              clock,
              databaseFile: config.databaseUrl.slice('sqlite:'.length),
              dir: config.backupDir,
              keep: config.backupKeep,
              everyHours: config.backupIntervalHours,
            }),
          ]
        : []),
    ],
    { concurrency: deps.jobsConcurrency },
    log,
  );

  return {
    clock,
    mailer,
    outbox,
    hits,
    imageBaseUrl,
    users,
    tokens,
    sessions,
    guards: createAuthGuards({ tokens, users }),
    signIn: createSignInService({ users, hits }),
    forwardAuth: config.authProxy
      ? createForwardAuthService({ users, autoRegister: config.authProxy.autoRegister })
      : null,
    passwordResets: createPasswordResetsService({ db, clock, outbox, appUrl: config.appUrl }),
    twoFactor: createTwoFactorService({
      db,
      clock,
      keys,
      hits,
    }),
    oidc:
      config.oidc && deps.oidcProvider
        ? createOidcService({
            db,
            clock,
            users,
            provider: deps.oidcProvider,
            config: config.oidc,
            appUrl: config.appUrl,
          })
        : null,
    library,
    statistics: createStatisticsService({ db, clock, imageBaseUrl }),
    yearReview: createYearReviewService({ db, imageBaseUrl, library }),
    movies,
    scrobble: createScrobbleService({ db, clock, movies, library, dedupeHours: config.scrobbleDedupeHours }),
    webhooks,
    feeds: createFeedsService({ db, clock, appUrl: config.appUrl, users, library }),
    exports: createExportsService({ library, webhooks, clock }),
    imports,
    uploads,
    backfill,
    images,
    status: createStatusService({ db, config, tmdb: deps.tmdb, queue: jobs.queue }),
    jobs,
    async close() {
      await jobs.runner.stop();
      await outbox.idle();
      if (deps.mailer === undefined) mailer?.close();
    },
  };
}
