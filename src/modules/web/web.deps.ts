// What the web module is given (by app.ts): types only, so that route files depend on this and not on
// web.plugin.ts, which registers them. Each route file takes the few services it uses (a Pick of these)
// and the shell's page helpers (shell/render.ts, `Pages`).
import type { HitCounter } from '../../db/rate-limit-store.js';
import type { Mailer } from '../../integrations/mail/mailer.js';
import type { Clock } from '../../shared/clock.js';
import type { ApiTokensService } from '../auth/api-tokens.service.js';
import type { OidcService } from '../auth/oidc.service.js';
import type { PasswordResetsService } from '../auth/password-resets.service.js';
import type { SessionsService } from '../auth/sessions.service.js';
import type { SignInService } from '../auth/sign-in.service.js';
import type { TwoFactorService } from '../auth/two-factor.service.js';
import type { BackfillService } from '../backfill/backfill.service.js';
import type { ExportsService } from '../exports/export.service.js';
import type { FeedsService } from '../feeds/feeds.service.js';
import type { ImportUploads } from '../imports/import-uploads.js';
import type { Library } from '../library/library.service.js';
import type { MoviesService } from '../movies/movies.service.js';
import type { ScrobbleService } from '../scrobble/scrobble.service.js';
import type { WebhooksService } from '../scrobble/webhooks.service.js';
import type { StatisticsService } from '../statistics/statistics.service.js';
import type { YearReviewService } from '../statistics/year-review.service.js';
import type { StatusService } from '../status/status.service.js';
import type { UsersService } from '../users/users.service.js';
import type { ForwardAuth } from './shell/forward-auth.js';

export interface WebDeps {
  appUrl: string;
  /** TMDB's image root (TMDB_IMAGE_BASE_URL): search results' posters, and the CSP's img-src. */
  imageBaseUrl: string;
  /** The root of the image URLs cinelog hands out: its own /images with the image cache on. */
  publicImageBaseUrl: string;
  registrationOpen: boolean;
  /** TIMEZONE: preselected for new accounts. */
  defaultTimezone: string;
  users: UsersService;
  sessions: SessionsService;
  tokens: ApiTokensService;
  webhooks: WebhooksService;
  /** The feed URLs (the watchlist as a Radarr list), shown on the integrations page. */
  feeds: FeedsService;
  /** The webhook inbox, shown on the integrations page. */
  scrobble: ScrobbleService;
  /** Sends the forgot-password mails; null when SMTP_URL is not set. */
  mailer: Mailer | null;
  /** The forgot-password links. */
  passwordResets: PasswordResetsService;
  /** Two-factor sign-in (TOTP): setup, the code asked at sign-in, turning it off. */
  twoFactor: TwoFactorService;
  /** Single sign-on (OIDC_*); null when it is not set up. */
  oidc: OidcService | null;
  hits: HitCounter;
  /** Sign-in with its attempt limits. */
  signIn: SignInService;
  /** The reverse proxy's sign-in (AUTH_PROXY_*, shell/forward-auth.ts); null when it is off. */
  forwardAuth: ForwardAuth | null;
  /** What the administrators' status page checks; whether TMDB is set up (the notice on every page). */
  status: StatusService;
  /** What users keep (plays, watchlist, ratings): every tracker page reads and writes through it. */
  library: Library;
  /** Movies: TMDB search, adding one, its details and people. */
  movies: MoviesService;
  /** Today, in a user's time zone (default dates, this year's totals). */
  clock: Clock;
  /** The statistics the API answers with, for the statistics page, the dashboard and the year in review. */
  statistics: StatisticsService;
  /** A year's movies: first, last, highest rated, the wall of posters. */
  yearReview: YearReviewService;
  /** Imports uploaded on Settings → Import and export: checked, queued as jobs, their status. */
  uploads: ImportUploads;
  /** The export downloads. */
  exports: ExportsService;
  /** Connections to Plex, Jellyfin and Emby, and their backfills of past plays (Settings → Integrations). */
  backfill: BackfillService;
}
