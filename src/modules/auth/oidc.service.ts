import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import * as client from 'openid-client';
import type { OidcConfig } from '../../config.js';
import type { Database } from '../../db/schema.js';
import type { Clock } from '../../shared/clock.js';
import { ValidationError } from '../../shared/errors.js';
import { LastAdminError, type User, type UsersService } from '../users/users.service.js';
import * as identities from './identities.repository.js';
import { describe, type OidcClaims, type OidcProvider } from './oidc-provider.js';
import { hashToken } from './token-format.js';

// Sign-in through an OpenID provider (docs/sso.md). An account is found by the issuer's subject, never
// by an e-mail alone: a first sign-in links to an existing account only when the issuer says the
// e-mail is verified and it is that account's; otherwise it creates one (OIDC_AUTO_REGISTER) or is
// refused.

/** A sign-in waits this long for the issuer's callback. */
export const OIDC_LOGIN_MINUTES = 10;
export const OIDC_CALLBACK_PATH = '/auth/oidc/callback';
const HANDLE_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** A refused sign-in or link: `message` is for the page, `reason` for the log (no code, no token). */
export class OidcRefusal extends Error {
  override name = 'OidcRefusal';
  constructor(
    readonly statusCode: number,
    message: string,
    readonly reason: string,
  ) {
    super(message);
  }
}

export interface OidcIdentity {
  id: number;
  issuer: string;
  email: string | null;
  createdAt: string;
  lastUsedAt: string | null;
}

export type OidcOutcome =
  | { kind: 'signed-in'; user: User; created: boolean; next: string }
  | { kind: 'linked'; user: User; next: string };

export interface OidcService {
  readonly buttonLabel: string;
  /** Where the sign-in form's redirect leads (the pages' CSP `form-action` allows it). */
  readonly authorizationOrigin: string;
  /** OIDC_ONLY: no password sign-in on the web. */
  readonly only: boolean;
  /**
   * A sign-in (or, with `linkUserId`, a link to that signed-in user) sent to the issuer: the secret
   * for the browser's cookie and the issuer's URL to go to.
   */
  begin(input: { linkUserId: number | null; next: string }): Promise<{ handle: string; url: string }>;
  /** The issuer's callback: checked and used up; throws OidcRefusal for anything wrong. */
  finish(handle: string | undefined, callbackQuery: string): Promise<OidcOutcome>;
  identitiesOf(userId: number): Promise<OidcIdentity[]>;
  /** Unlinks the user's own identity; OidcRefusal when it is not theirs or the last way in. */
  unlink(userId: number, identityId: number): Promise<void>;
}

export function createOidcService(deps: {
  db: Kysely<Database>;
  clock: Clock;
  users: UsersService;
  provider: OidcProvider;
  config: OidcConfig;
  appUrl: string;
}): OidcService {
  const { db, clock, users, provider, config } = deps;
  const redirectUri = `${deps.appUrl}${OIDC_CALLBACK_PATH}`;

  const refuse = (status: number, message: string, reason: string) =>
    new OidcRefusal(status, message, reason);
  const raced = () =>
    refuse(
      409,
      'Another sign-in with this identity happened at the same moment. Start the sign-in again.',
      'identity linked by a concurrent sign-in',
    );

  /** The account a sign-in's claims belong to, linked, created or none (a refusal). */
  const accountFor = async (claims: OidcClaims): Promise<{ user: User; created: boolean }> => {
    const now = clock.now().toISOString();
    const linked = await identities.findIdentity(db, claims.issuer, claims.subject);
    if (linked) {
      const user = await users.findById(linked.userId);
      if (!user) throw refuse(403, 'This sign-in belongs to no account here.', 'identity without a user');
      await identities.touchIdentity(db, linked.id, claims.email, now);
      return { user, created: false };
    }
    const byEmail = claims.email === null ? undefined : await identities.findUserIdByEmail(db, claims.email);
    if (byEmail) {
      if (!claims.emailVerified) {
        throw refuse(
          403,
          'An account here has this e-mail address, but your identity provider has not verified it, so it cannot be linked by e-mail. Sign in with your password and link single sign-on under Settings → Account.',
          'e-mail matches an account but is not verified',
        );
      }
      const user = await users.findById(byEmail.id);
      if (!user) throw refuse(403, 'This sign-in belongs to no account here.', 'account gone');
      if ((await identities.identitiesOfUser(db, user.id)).some((i) => i.issuer === claims.issuer)) {
        throw refuse(
          409,
          'The account with this e-mail address is already linked to another sign-in of this identity provider.',
          'account already linked to another subject',
        );
      }
      if (!(await identities.insertIdentity(db, { userId: user.id, ...claims, now }))) throw raced();
      return { user, created: false };
    }
    if (!config.autoRegister) {
      throw refuse(
        403,
        'There is no account here for this sign-in. Ask the administrator to create one, then link single sign-on under Settings → Account.',
        'no account and OIDC_AUTO_REGISTER is off',
      );
    }
    if (claims.email === null) {
      throw refuse(
        403,
        'Your identity provider gave no e-mail address, and an account here needs one. Ask the administrator to add the e-mail scope.',
        'no e-mail claim',
      );
    }
    let user: User;
    try {
      user = await users.create({
        name: await freeName(claims),
        email: claims.email,
        // Nobody knows it: the account signs in through the issuer (a password can be set through
        // forgot-password or `cinelog user reset-password`).
        password: randomBytes(32).toString('base64url'),
      });
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      // The name or the address taken in the meantime: most likely by the same sign-in twice.
      if (/already exists/.test(error.message)) throw raced();
      throw refuse(403, `Your account cannot be made here: ${error.message}.`, error.message);
    }
    if (!(await identities.insertIdentity(db, { userId: user.id, ...claims, now }))) {
      // Another sign-in of the same subject made its account first: this one goes.
      await users.delete(user.name);
      throw raced();
    }
    return { user, created: true };
  };

  /** preferred_username made a valid name (users.service's pattern), and one nobody has. */
  const freeName = async (claims: OidcClaims): Promise<string> => {
    const source = claims.preferredUsername ?? claims.email?.split('@')[0] ?? 'user';
    let base = source
      .normalize('NFKD')
      .replace(/[^A-Za-z0-9_.-]+/g, '-')
      .replace(/^[^A-Za-z0-9]+/, '')
      .slice(0, 56);
    if (base === '') base = 'user';
    for (let n = 1; n <= 50; n += 1) {
      const name = n === 1 ? base : `${base}-${n}`;
      if (!(await identities.nameTaken(db, name))) return name;
    }
    return `${base.slice(0, 40)}-${randomBytes(6).toString('hex')}`;
  };

  /** OIDC_ADMIN_GROUP: granted at each sign-in of a member; never taken away here (docs/sso.md). */
  const applyAdminGroup = async (user: User, claims: OidcClaims): Promise<User> => {
    if (config.adminGroup === null || user.isAdmin || !claims.groups.includes(config.adminGroup)) return user;
    try {
      return await users.update(user.name, { isAdmin: true });
    } catch (error) {
      if (error instanceof LastAdminError) return user;
      throw error;
    }
  };

  return {
    buttonLabel: config.buttonLabel,
    authorizationOrigin: provider.authorizationOrigin,
    only: config.only,

    async begin({ linkUserId, next }) {
      const now = clock.now();
      const handle = randomBytes(32).toString('base64url');
      const checks = {
        state: client.randomState(),
        nonce: client.randomNonce(),
        codeVerifier: client.randomPKCECodeVerifier(),
      };
      // Sign-ins are rare: a good moment to forget the abandoned ones.
      await identities.deleteExpiredLogins(db, now.toISOString());
      await identities.insertLogin(db, {
        hash: hashToken(handle),
        ...checks,
        userId: linkUserId,
        next,
        createdAt: now.toISOString(),
        expiresAt: new Date(now.getTime() + OIDC_LOGIN_MINUTES * 60_000).toISOString(),
      });
      return { handle, url: await provider.authorizationUrl(redirectUri, checks) };
    },

    async finish(handle, callbackQuery) {
      const params = new URLSearchParams(callbackQuery);
      const issuerError = params.get('error');
      if (issuerError !== null) {
        throw refuse(
          400,
          'The identity provider did not sign you in. Go back and try again.',
          `the issuer answered ${issuerError.slice(0, 100)}`,
        );
      }
      if (handle === undefined || !HANDLE_PATTERN.test(handle)) {
        throw refuse(
          400,
          'This sign-in has expired or was started in another browser. Start it again.',
          'no sign-in cookie',
        );
      }
      const login = await identities.takeLogin(db, hashToken(handle), clock.now().toISOString());
      if (!login) {
        throw refuse(
          400,
          'This sign-in has expired or was already used. Start it again.',
          'sign-in unknown, expired or used',
        );
      }
      let claims: OidcClaims;
      try {
        claims = await provider.exchange(new URL(`${redirectUri}?${callbackQuery}`), login);
      } catch (error) {
        const down = isUnreachable(error);
        throw refuse(
          // A 4xx page either way: nothing on our side failed (the reason goes to the log).
          400,
          down
            ? 'The identity provider cannot be reached just now. Try again in a moment.'
            : 'The identity provider’s answer could not be verified, so you are not signed in. Start the sign-in again.',
          describe(error),
        );
      }

      if (login.userId !== null) {
        const user = await users.findById(login.userId);
        if (!user) throw refuse(400, 'This sign-in has expired. Start it again.', 'linking user gone');
        const linked = await identities.findIdentity(db, claims.issuer, claims.subject);
        if (linked && linked.userId !== user.id) {
          throw refuse(
            409,
            'This single sign-on identity is already linked to another account here.',
            'subject linked to another user',
          );
        }
        if (!linked) {
          const own = await identities.identitiesOfUser(db, user.id);
          if (own.some((i) => i.issuer === claims.issuer)) {
            throw refuse(
              409,
              'Your account is already linked to another identity of this provider: unlink it first.',
              'user already linked to another subject',
            );
          }
          const now = clock.now().toISOString();
          if (!(await identities.insertIdentity(db, { userId: user.id, ...claims, now }))) throw raced();
        }
        return { kind: 'linked', user, next: login.next };
      }

      const { user, created } = await accountFor(claims);
      return { kind: 'signed-in', user: await applyAdminGroup(user, claims), created, next: login.next };
    },

    async identitiesOf(userId) {
      const rows = await identities.identitiesOfUser(db, userId);
      return rows.map(({ id, issuer, email, createdAt, lastUsedAt }) => ({
        id,
        issuer,
        email,
        createdAt,
        lastUsedAt,
      }));
    },

    async unlink(userId, identityId) {
      const own = await identities.identitiesOfUser(db, userId);
      if (!own.some((identity) => identity.id === identityId)) {
        throw refuse(404, 'There is no such single sign-on link on your account.', 'not the user’s identity');
      }
      if (config.only && own.length === 1) {
        throw refuse(
          409,
          'Single sign-on is the only way to sign in here (OIDC_ONLY): this link is your way in, so it stays.',
          'last identity with OIDC_ONLY',
        );
      }
      await identities.deleteIdentity(db, userId, identityId);
    },
  };
}

/** The issuer did not answer (down, refused, timed out), as opposed to an answer that failed a check. */
function isUnreachable(error: unknown): boolean {
  const text = describe(error);
  if (
    /ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENOTFOUND|EAI_AGAIN|UND_ERR|fetch failed|aborted|timeout/i.test(text)
  ) {
    return true;
  }
  const status = (error as { status?: number; response?: { status?: number } }).response?.status;
  return typeof status === 'number' && status >= 500;
}
