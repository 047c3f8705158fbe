import * as client from 'openid-client';
import type { OidcConfig } from '../../config.js';
import { ConfigError } from '../../config.js';

// The OpenID provider, through openid-client (a maintained, certified library: no JOSE by hand here).
// Discovery happens once at start; each sign-in then builds an authorization URL and, at the callback,
// trades the code for an ID token that openid-client checks: the signature against the issuer's JWKS
// (enableNonRepudiationChecks: without it v6 trusts the token endpoint's TLS alone), iss, aud, exp,
// nonce, state and the PKCE verifier.

/** What cinelog keeps of a checked sign-in: the subject and the claims it reads. */
export interface OidcClaims {
  issuer: string;
  subject: string;
  email: string | null;
  emailVerified: boolean;
  preferredUsername: string | null;
  groups: readonly string[];
}

export interface OidcChecks {
  state: string;
  nonce: string;
  codeVerifier: string;
}

export interface OidcProvider {
  /** The issuer as its discovery document names it. */
  readonly issuer: string;
  /** The origin of the issuer's authorization endpoint: the sign-in forms' CSP `form-action` allows it. */
  readonly authorizationOrigin: string;
  authorizationUrl(redirectUri: string, checks: OidcChecks): Promise<string>;
  /** The callback's URL (with its code and state) checked and traded for the user's claims. */
  exchange(callbackUrl: URL, checks: OidcChecks): Promise<OidcClaims>;
}

/** Discovery at start: a wrong or unreachable issuer is a ConfigError, one line that stops the start. */
export async function discoverOidcProvider(oidc: OidcConfig): Promise<OidcProvider> {
  let config: client.Configuration;
  try {
    config = await client.discovery(
      new URL(oidc.issuerUrl),
      oidc.clientId,
      oidc.clientSecret ?? undefined,
      // client_secret_basic: OAuth's default, which every provider takes (Authelia only it, unless told).
      oidc.clientSecret === null ? client.None() : client.ClientSecretBasic(oidc.clientSecret),
      { execute: oidc.allowHttp ? [client.allowInsecureRequests] : [], timeout: 10 },
    );
  } catch (error) {
    throw new ConfigError(
      `OIDC_ISSUER_URL: no OpenID provider at ${oidc.issuerUrl} (${describe(error)}); check the URL and that ${oidc.issuerUrl}/.well-known/openid-configuration answers`,
    );
  }
  client.enableNonRepudiationChecks(config);
  const metadata = config.serverMetadata();
  const issuer = metadata.issuer;

  return {
    issuer,
    authorizationOrigin: new URL(metadata.authorization_endpoint ?? issuer).origin,
    async authorizationUrl(redirectUri, checks) {
      const parameters: Record<string, string> = {
        redirect_uri: redirectUri,
        scope: oidc.scopes,
        state: checks.state,
        nonce: checks.nonce,
        code_challenge: await client.calculatePKCECodeChallenge(checks.codeVerifier),
        code_challenge_method: 'S256',
      };
      return client.buildAuthorizationUrl(config, parameters).href;
    },

    async exchange(callbackUrl, checks) {
      const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: checks.codeVerifier,
        expectedState: checks.state,
        expectedNonce: checks.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims();
      if (!claims) throw new Error('the token endpoint answered without an ID token');
      let merged: Record<string, unknown> = { ...claims };
      // Providers (Authelia) may keep e-mail and groups to the userinfo endpoint: read it when the ID
      // token lacks them. Its subject must be the ID token's.
      const lacking = claims.email === undefined || (oidc.adminGroup !== null && claims.groups === undefined);
      if (lacking && metadata.userinfo_endpoint) {
        const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
        merged = { ...info, ...claims };
      }
      return {
        issuer,
        subject: claims.sub,
        email: typeof merged.email === 'string' ? merged.email.trim().toLowerCase() : null,
        emailVerified: merged.email_verified === true || merged.email_verified === 'true',
        preferredUsername: typeof merged.preferred_username === 'string' ? merged.preferred_username : null,
        groups: Array.isArray(merged.groups)
          ? merged.groups.filter((group): group is string => typeof group === 'string')
          : [],
      };
    },
  };
}

/** An error's kind, for the log and the start line: never a code, a token or a secret. */
export function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: string }).code;
  const cause = (error as { cause?: unknown }).cause;
  const own = code ? `${error.message} [${code}]` : error.message;
  // openid-client wraps what failed (a JOSE error, a socket error): its message says which check.
  if (cause instanceof Error) return `${own}: ${describe(cause)}`;
  const causeCode = (cause as { code?: string } | undefined)?.code;
  return typeof causeCode === 'string' ? `${own} [${causeCode}]` : own;
}
