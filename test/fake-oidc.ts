import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';

/**
 * A local OpenID provider for tests: discovery, authorize (answers at once with a redirect carrying a
 * code, as if the user had signed in), token (checks the code once, the client secret and the PKCE
 * verifier), JWKS and userinfo. It signs ID tokens with its own RSA key, and can be told to do what a
 * broken or hostile provider does: sign with another key, name another audience or issuer, echo
 * another nonce, send an expired token, or be down. Every value in it is invented.
 */

export interface FakeOidcUser {
  sub: string;
  email?: string;
  email_verified?: boolean;
  preferred_username?: string;
  groups?: string[];
}

/** How the next ID tokens go wrong (all off by default). */
export interface FakeOidcTampering {
  otherKey?: boolean;
  aud?: string;
  iss?: string;
  nonce?: string;
  expired?: boolean;
}

export const FAKE_CLIENT_ID = 'cinelog-test';
export const FAKE_CLIENT_SECRET = 'fake-oidc-client-secret';

export interface FakeOidc {
  /** The issuer URL (http://127.0.0.1:port). */
  issuer: string;
  /** The user the next authorize signs in. */
  user: FakeOidcUser;
  tampering: FakeOidcTampering;
  /** true: every connection is dropped (the provider is down). */
  down: boolean;
  /** Token requests answered (with a token or an error). */
  tokenRequests: number;
  /** The env a cinelog app needs to use this provider. */
  env(extra?: Record<string, string>): Record<string, string>;
  /**
   * What the provider answers to an authorization URL: the callback's path and query at the app
   * (`/auth/oidc/callback?code=...&state=...`), as the browser would be redirected.
   */
  authorize(authorizationUrl: string): Promise<string>;
  close(): Promise<void>;
}

interface IssuedCode {
  user: FakeOidcUser;
  nonce: string | null;
  challenge: string | null;
  redirectUri: string;
  used: boolean;
}

export async function startFakeOidc(): Promise<FakeOidc> {
  const keys = await generateKeyPair('RS256', { extractable: true });
  const otherKeys = await generateKeyPair('RS256', { extractable: true });
  const publicJwk: JWK = {
    ...(await exportJWK(keys.publicKey)),
    kid: 'fake-key-1',
    alg: 'RS256',
    use: 'sig',
  };
  const codes = new Map<string, IssuedCode>();
  const accessTokens = new Map<string, FakeOidcUser>();
  let issuer = '';

  const fake: FakeOidc = {
    issuer: '',
    user: { sub: 'subject-1', email: 'sso@example.test', email_verified: true, preferred_username: 'sso' },
    tampering: {},
    down: false,
    tokenRequests: 0,
    env: (extra = {}) => ({
      OIDC_ISSUER_URL: issuer,
      OIDC_CLIENT_ID: FAKE_CLIENT_ID,
      OIDC_CLIENT_SECRET: FAKE_CLIENT_SECRET,
      ...extra,
    }),
    async authorize(authorizationUrl) {
      const response = await fetch(authorizationUrl, { redirect: 'manual' });
      const location = response.headers.get('location');
      if (response.status !== 302 || !location) throw new Error(`authorize answered ${response.status}`);
      const url = new URL(location);
      return `${url.pathname}${url.search}`;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };

  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  const idToken = async (code: IssuedCode) => {
    const t = fake.tampering;
    const now = Math.floor(Date.now() / 1000);
    const { sub, ...claims } = code.user;
    return new SignJWT({ ...claims, ...((t.nonce ?? code.nonce) && { nonce: t.nonce ?? code.nonce }) })
      .setProtectedHeader({ alg: 'RS256', kid: 'fake-key-1' })
      .setIssuer(t.iss ?? issuer)
      .setAudience(t.aud ?? FAKE_CLIENT_ID)
      .setSubject(sub)
      .setIssuedAt(t.expired ? now - 7200 : now)
      .setExpirationTime(t.expired ? now - 3600 : now + 300)
      .sign(t.otherKey ? otherKeys.privateKey : keys.privateKey);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', issuer);
    if (url.pathname === '/.well-known/openid-configuration') {
      return json(res, 200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        userinfo_endpoint: `${issuer}/userinfo`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_basic'],
        scopes_supported: ['openid', 'profile', 'email', 'groups'],
      });
    }
    if (url.pathname === '/jwks') return json(res, 200, { keys: [publicJwk] });
    if (url.pathname === '/authorize') {
      const q = url.searchParams;
      if (q.get('client_id') !== FAKE_CLIENT_ID || q.get('response_type') !== 'code') {
        return json(res, 400, { error: 'invalid_request' });
      }
      const redirectUri = q.get('redirect_uri') ?? '';
      const code = randomBytes(16).toString('hex');
      codes.set(code, {
        user: { ...fake.user },
        nonce: q.get('nonce'),
        challenge: q.get('code_challenge'),
        redirectUri,
        used: false,
      });
      const back = new URL(redirectUri);
      back.searchParams.set('code', code);
      back.searchParams.set('state', q.get('state') ?? '');
      res.writeHead(302, { location: back.href });
      return res.end();
    }
    if (url.pathname === '/token' && req.method === 'POST') {
      fake.tokenRequests += 1;
      let body = '';
      for await (const chunk of req) body += chunk;
      const form = new URLSearchParams(body);
      // client_secret_basic: the id and the secret, each form-encoded, in a Basic header.
      const basic = Buffer.from(
        (req.headers.authorization ?? '').replace(/^Basic /i, ''),
        'base64',
      ).toString();
      const [id, secret] = basic.split(':').map((part) => decodeURIComponent(part.replace(/\+/g, ' ')));
      if (id !== FAKE_CLIENT_ID || secret !== FAKE_CLIENT_SECRET) {
        return json(res, 401, { error: 'invalid_client' });
      }
      const issued = codes.get(form.get('code') ?? '');
      if (!issued || issued.used || form.get('redirect_uri') !== issued.redirectUri) {
        return json(res, 400, { error: 'invalid_grant', error_description: 'unknown or used code' });
      }
      issued.used = true;
      const verifier = form.get('code_verifier') ?? '';
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      if (issued.challenge === null || challenge !== issued.challenge) {
        return json(res, 400, { error: 'invalid_grant', error_description: 'PKCE verification failed' });
      }
      const accessToken = randomBytes(16).toString('hex');
      accessTokens.set(accessToken, issued.user);
      return json(res, 200, {
        access_token: accessToken,
        token_type: 'Bearer',
        expires_in: 300,
        id_token: await idToken(issued),
      });
    }
    if (url.pathname === '/userinfo') {
      const user = accessTokens.get((req.headers.authorization ?? '').replace(/^Bearer /i, ''));
      if (!user) return json(res, 401, { error: 'invalid_token' });
      return json(res, 200, user);
    }
    return json(res, 404, { error: 'not_found' });
  };

  const server = createServer((req, res) => {
    if (fake.down) {
      req.socket.destroy();
      return;
    }
    handle(req, res).catch((error: unknown) => json(res, 500, { error: String(error) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.issuer = issuer;
  return fake;
}
