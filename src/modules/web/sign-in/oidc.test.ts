import type { LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_CLIENT_SECRET, type FakeOidc, startFakeOidc } from '../../../../test/fake-oidc.js';
import {
  createTestDatabase,
  createUser,
  setupTestApp,
  TestClock,
  type TestContext,
} from '../../../../test/harness.js';
import { signedInClient, TEST_PASSWORD, textOf, WebClient } from '../../../../test/web-client.js';
import { buildApp } from '../../../app.js';
import { ConfigError, loadConfig } from '../../../config.js';

let fake: FakeOidc;
let ctx: TestContext | undefined;

beforeAll(async () => {
  fake = await startFakeOidc();
});
afterAll(() => fake.close());
afterEach(async () => {
  await ctx?.close();
  ctx = undefined;
  fake.user = {
    sub: 'subject-1',
    email: 'sso@example.test',
    email_verified: true,
    preferred_username: 'sso',
  };
  fake.tampering = {};
  fake.down = false;
});

async function app(env: Record<string, string> = {}): Promise<TestContext> {
  ctx = await setupTestApp({ env: fake.env(env) });
  // The first account, so that /login is not sent to the first-run setup.
  await createUser(ctx, { name: 'admin', isAdmin: true });
  return ctx;
}

/** The sign-in page's button, the issuer's redirect, and the callback as a browser follows them. */
async function ssoFrom(client: WebClient, startPath = '/auth/oidc', page = '/login') {
  const started = await client.submit(page, startPath, startPath === '/auth/oidc' ? { next: '/' } : {});
  expect(started.statusCode).toBe(303);
  const location = String(started.headers.location);
  expect(location.startsWith(`${fake.issuer}/authorize?`)).toBe(true);
  const query = new URL(location).searchParams;
  // PKCE, state and nonce are sent to the issuer
  expect(query.get('code_challenge_method')).toBe('S256');
  expect(query.get('state')).toMatch(/.{20,}/);
  expect(query.get('nonce')).toMatch(/.{20,}/);
  expect(query.get('redirect_uri')).toBe('http://cinelog.test/auth/oidc/callback');
  expect(client.cookies.has('cinelog_oidc')).toBe(true);
  return fake.authorize(location);
}

const sessionSet = (response: LightMyRequestResponse) =>
  (response.cookies as { name: string; value: string }[]).some(
    (cookie) => cookie.name === 'cinelog_session' && cookie.value !== '',
  );

/** A link of `userId` to the fake issuer's `subject`, as an earlier sign-in would have stored it. */
const linkIdentity = (c: TestContext, userId: number, subject: string) =>
  c.db
    .insertInto('user_identities')
    .values({
      user_id: userId,
      issuer: fake.issuer,
      subject,
      email: null,
      created_at: '2024-06-01T00:00:00.000Z',
      last_used_at: null,
    })
    .execute();
const identityCount = async (c: TestContext) =>
  Number(
    (
      await c.db
        .selectFrom('user_identities')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('signing in with single sign-on', () => {
  it('creates an account on a first sign-in with OIDC_AUTO_REGISTER, and signs the same subject in again', async () => {
    const c = await app({ OIDC_AUTO_REGISTER: 'true' });
    await createUser(c, { name: 'sso' }); // the name is taken: the new account gets another
    fake.user = {
      sub: 'new-1',
      email: 'New.Person@Example.test',
      email_verified: true,
      preferred_username: 'sso',
    };
    const browser = new WebClient(c.app);
    const login = await browser.get('/login');
    expect(textOf(login.body)).toContain('Sign in with SSO');
    // The button's form is answered with a redirect to the issuer: the CSP lets the form go there.
    expect(login.headers['content-security-policy']).toContain(`form-action 'self' ${fake.issuer}`);
    const callback = await browser.get(await ssoFrom(browser));
    expect(callback.statusCode).toBe(303);
    expect(callback.headers.location).toBe('/');
    expect(sessionSet(callback)).toBe(true);
    expect(browser.cookies.has('cinelog_oidc')).toBe(false);
    const home = await browser.follow(callback);
    expect(textOf(home.body)).toContain('Signed in as sso-2');
    const user = await c.users.findByName('sso-2');
    expect(user).toMatchObject({ email: 'new.person@example.test', isAdmin: false });
    // The random password is nobody's
    expect(await c.users.verifyLogin('sso-2', TEST_PASSWORD)).toBeNull();

    const again = new WebClient(c.app);
    const second = await again.get(await ssoFrom(again));
    expect(second.statusCode).toBe(303);
    expect(textOf((await again.follow(second)).body)).toContain('Signed in as sso-2');
    expect(await c.users.count()).toBe(3);
    expect(await identityCount(c)).toBe(1);
  });

  it('makes a name valid from preferred_username', async () => {
    const c = await app({ OIDC_AUTO_REGISTER: 'true' });
    fake.user = {
      sub: 'odd',
      email: 'odd@example.test',
      email_verified: true,
      preferred_username: '..José Q!',
    };
    const browser = new WebClient(c.app);
    expect((await browser.get(await ssoFrom(browser))).statusCode).toBe(303);
    expect(await c.users.findByName('Jose-Q-')).toBeDefined();
  });

  it('refuses a first sign-in without an account when OIDC_AUTO_REGISTER is off', async () => {
    const c = await app();
    const browser = new WebClient(c.app);
    const callback = await browser.get(await ssoFrom(browser));
    expect(callback.statusCode).toBe(403);
    expect(textOf(callback.body)).toContain('There is no account here for this sign-in');
    expect(callback.body).toContain('<main');
    expect(sessionSet(callback)).toBe(false);
    expect(await c.users.count()).toBe(1);
  });

  it('links an existing account by its e-mail only when the issuer has verified it', async () => {
    const c = await app({ OIDC_AUTO_REGISTER: 'true' });
    const ada = await createUser(c, { name: 'ada' });
    fake.user = {
      sub: 'ada-sub',
      email: 'ADA@example.test',
      email_verified: false,
      preferred_username: 'ada2',
    };
    const first = new WebClient(c.app);
    const refused = await first.get(await ssoFrom(first));
    expect(refused.statusCode).toBe(403);
    expect(textOf(refused.body)).toContain('has not verified it');
    expect(sessionSet(refused)).toBe(false);
    expect(await identityCount(c)).toBe(0);
    expect(await c.users.count()).toBe(2);

    fake.user = { ...fake.user, email_verified: true };
    const browser = new WebClient(c.app);
    const callback = await browser.get(await ssoFrom(browser));
    expect(callback.statusCode).toBe(303);
    expect(textOf((await browser.follow(callback)).body)).toContain('Signed in as ada');
    const rows = await c.db.selectFrom('user_identities').selectAll().execute();
    expect(rows).toMatchObject([{ user_id: ada.user.id, subject: 'ada-sub', issuer: fake.issuer }]);
  });

  it('skips two-factor: the issuer asks for it', async () => {
    const c = await app();
    const ada = await createUser(c, { name: 'ada' });
    await linkIdentity(c, ada.user.id, 'ada-sub');
    fake.user = { sub: 'ada-sub' };
    const browser = new WebClient(c.app);
    const callback = await browser.get(await ssoFrom(browser));
    expect(callback.statusCode).toBe(303);
    expect(sessionSet(callback)).toBe(true);
  });

  it('makes a member of OIDC_ADMIN_GROUP an administrator, and nobody else', async () => {
    const c = await app({ OIDC_AUTO_REGISTER: 'true', OIDC_ADMIN_GROUP: 'cinelog-admins' });
    fake.user = {
      sub: 'a',
      email: 'a@example.test',
      email_verified: true,
      preferred_username: 'boss',
      groups: ['cinelog-admins'],
    };
    const boss = new WebClient(c.app);
    expect((await boss.get(await ssoFrom(boss))).statusCode).toBe(303);
    fake.user = {
      sub: 'b',
      email: 'b@example.test',
      email_verified: true,
      preferred_username: 'member',
      groups: ['family'],
    };
    const member = new WebClient(c.app);
    expect((await member.get(await ssoFrom(member))).statusCode).toBe(303);
    expect((await c.users.findByName('boss'))?.isAdmin).toBe(true);
    expect((await c.users.findByName('member'))?.isAdmin).toBe(false);
  });
});

describe('two sign-ins at once', () => {
  it('makes one account for a new subject signing in twice at the same moment', async () => {
    const c = await app({ OIDC_AUTO_REGISTER: 'true' });
    fake.user = {
      sub: 'twice',
      email: 'twice@example.test',
      email_verified: true,
      preferred_username: 'twice',
    };
    const browsers = [new WebClient(c.app), new WebClient(c.app), new WebClient(c.app)];
    const callbacks = await Promise.all(browsers.map((browser) => ssoFrom(browser)));
    const answers = await Promise.all(browsers.map((browser, i) => browser.get(callbacks[i] as string)));
    for (const answer of answers) expect([303, 409]).toContain(answer.statusCode);
    expect(answers.filter((answer) => answer.statusCode === 303).length).toBeGreaterThan(0);
    expect(await c.users.count()).toBe(2);
    expect(await identityCount(c)).toBe(1);
  });
});

/** The ID tokens the fake issuer spoils on request, and the reason the log gives for refusing each. */
const TAMPERED: { what: string; tampering: Partial<FakeOidc['tampering']>; logged: RegExp }[] = [
  { what: 'an ID token signed with another key', tampering: { otherKey: true }, logged: /signature/i },
  { what: 'a wrong audience', tampering: { aud: 'someone-else' }, logged: /aud/ },
  { what: 'a wrong issuer', tampering: { iss: 'http://127.0.0.1:1/elsewhere' }, logged: /iss/ },
  { what: 'a wrong nonce', tampering: { nonce: 'not-the-one-sent' }, logged: /nonce/ },
  { what: 'an expired ID token', tampering: { expired: true }, logged: /exp/ },
];

describe('refusals: a clear page, no session, no account', () => {
  /** An app that registers first sign-ins, and a browser back from the issuer, its callback not followed. */
  async function atCallback(env: Record<string, string> = { OIDC_AUTO_REGISTER: 'true' }) {
    const c = await app(env);
    const browser = new WebClient(c.app);
    return { c, browser, callback: await ssoFrom(browser) };
  }

  /** A refused callback: a 400 (whose page says `says`, when given) and no session. */
  function expectRefused(answer: LightMyRequestResponse, says?: string) {
    expect(answer.statusCode).toBe(400);
    if (says !== undefined) expect(textOf(answer.body)).toContain(says);
    expect(sessionSet(answer)).toBe(false);
  }

  for (const { what, tampering } of TAMPERED) {
    it(`refuses ${what}`, async () => {
      const { c, browser, callback } = await atCallback();
      // The fake spoils the ID token it gives at the token endpoint, when the callback is followed.
      fake.tampering = tampering;
      const answer = await browser.get(callback);
      expectRefused(answer, 'could not be verified');
      expect(await c.users.count()).toBe(1);
      expect(await identityCount(c)).toBe(0);
      expect(fake.tokenRequests).toBeGreaterThan(0);
    });
  }

  it('refuses a tampered state, without asking the issuer for a token', async () => {
    const { c, browser, callback: url } = await atCallback();
    const callback = new URL(url, 'http://cinelog.test');
    callback.searchParams.set('state', 'forged-state');
    const before = fake.tokenRequests;
    expectRefused(await browser.get(`${callback.pathname}${callback.search}`));
    expect(fake.tokenRequests).toBe(before);
    expect(await c.users.count()).toBe(1);
  });

  it('refuses a callback replayed, and a code used twice', async () => {
    const { c, browser, callback } = await atCallback();
    const cookie = browser.cookies.get('cinelog_oidc') as string;
    expect((await browser.get(callback)).statusCode).toBe(303);

    // The same callback with the same cookie: the sign-in is used up.
    const replay = new WebClient(c.app);
    replay.cookies.set('cinelog_oidc', cookie);
    expectRefused(await replay.get(callback));

    // The old code with a new sign-in's state: the issuer refuses the code.
    const other = new WebClient(c.app);
    const fresh = new URL(await ssoFrom(other), 'http://cinelog.test');
    const code = new URL(callback, 'http://cinelog.test').searchParams.get('code') as string;
    fresh.searchParams.set('code', code);
    expectRefused(await other.get(`${fresh.pathname}${fresh.search}`));
    expect(await c.users.count()).toBe(2);
  });

  it('refuses a callback without the sign-in cookie (another browser)', async () => {
    const { c, callback } = await atCallback();
    const stranger = new WebClient(c.app);
    expectRefused(await stranger.get(callback), 'expired or was started in another browser');
  });

  it('refuses the issuer’s error answer', async () => {
    const { browser } = await atCallback({});
    expectRefused(await browser.get('/auth/oidc/callback?error=access_denied&state=x'));
  });

  it('says so when the issuer is down at the callback', async () => {
    const { c, browser, callback } = await atCallback();
    fake.down = true;
    expectRefused(await browser.get(callback), 'cannot be reached');
    expect(await c.users.count()).toBe(1);
  });
});

describe('OIDC_ONLY', () => {
  it('shows only the button, refuses a password, and still signs in through the issuer', async () => {
    const c = await app({
      OIDC_ONLY: 'true',
      OIDC_BUTTON_LABEL: 'Sign in with Pocket ID',
      ENABLE_REGISTRATION: 'true',
    });
    const ada = await createUser(c, { name: 'ada' });
    const browser = new WebClient(c.app);
    const page = await browser.get('/login');
    expect(page.body).not.toContain('name="password"');
    expect(textOf(page.body)).toContain('Sign in with Pocket ID');
    const refused = await browser.post('/login', { login: 'ada', password: TEST_PASSWORD });
    expect(refused.statusCode).toBe(403);
    expect(textOf(refused.body)).toContain('Password sign-in is turned off');
    expect(sessionSet(refused)).toBe(false);
    // No password sign-up either
    expect((await browser.get('/register')).statusCode).toBe(404);

    fake.user = { sub: 'ada-sub', email: ada.user.email, email_verified: true };
    const callback = await browser.get(await ssoFrom(browser));
    expect(callback.statusCode).toBe(303);
    expect(textOf((await browser.follow(callback)).body)).toContain('Signed in as ada');
  });

  it('without single sign-on the sign-in page has no button and /auth/oidc is not there', async () => {
    ctx = await setupTestApp();
    await createUser(ctx, { name: 'admin', isAdmin: true });
    const browser = new WebClient(ctx.app);
    const page = await browser.get('/login');
    expect(page.body).not.toContain('/auth/oidc');
    expect(page.headers['content-security-policy']).toContain("form-action 'self';");
    expect((await browser.post('/auth/oidc', {})).statusCode).toBe(404);
    expect((await browser.get('/auth/oidc/callback?code=x&state=y')).statusCode).toBe(404);
  });
});

describe('Settings → Account: link and unlink', () => {
  it('requires a sign-in to link, unlink or see the section', async () => {
    const c = await app();
    const browser = new WebClient(c.app);
    await browser.get('/login');
    for (const path of ['/settings/account/sso/link', '/settings/account/sso/unlink']) {
      const answer = await browser.post(path, { identity: '1' });
      expect(answer.statusCode).toBe(303);
      expect(answer.headers.location).toBe('/login');
    }
    expect((await browser.get('/settings/account')).statusCode).toBe(303);
  });

  it('links the signed-in account, signs it in by its subject, and unlinks it', async () => {
    const c = await app();
    const bob = await createUser(c, { name: 'bob' });
    const browser = await signedInClient(c.app, 'bob');
    const account = await browser.get('/settings/account');
    expect(textOf(account.body)).toContain('Your account is not linked to single sign-on');
    fake.user = { sub: 'bob-sub', email: 'other-address@example.test', email_verified: false };
    const linked = await browser.get(
      await ssoFrom(browser, '/settings/account/sso/link', '/settings/account'),
    );
    expect(linked.statusCode).toBe(303);
    expect(linked.headers.location).toBe('/settings/account');
    expect(sessionSet(linked)).toBe(false);
    const page = await browser.follow(linked);
    expect(textOf(page.body)).toContain('Single sign-on is linked to your account.');
    expect(textOf(page.body)).toContain(`Linked to ${fake.issuer} as other-address@example.test`);

    const elsewhere = new WebClient(c.app);
    const signIn = await elsewhere.get(await ssoFrom(elsewhere));
    expect(signIn.statusCode).toBe(303);
    expect(textOf((await elsewhere.follow(signIn)).body)).toContain('Signed in as bob');

    const [identity] = await c.db.selectFrom('user_identities').select(['id', 'user_id']).execute();
    expect(identity?.user_id).toBe(bob.user.id);
    await browser.get('/settings/account');
    const unlinked = await browser.post('/settings/account/sso/unlink', { identity: String(identity?.id) });
    expect(unlinked.statusCode).toBe(303);
    expect(await identityCount(c)).toBe(0);
  });

  it('refuses to link a subject linked to someone else, and unlinks only one’s own', async () => {
    const c = await app();
    const bob = await createUser(c, { name: 'bob' });
    const eve = await createUser(c, { name: 'eve' });
    await linkIdentity(c, bob.user.id, 'bob-sub');
    const bobIdentity = await c.db.selectFrom('user_identities').select('id').executeTakeFirstOrThrow();
    const browser = await signedInClient(c.app, 'eve');
    fake.user = { sub: 'bob-sub' };
    const refused = await browser.get(
      await ssoFrom(browser, '/settings/account/sso/link', '/settings/account'),
    );
    expect(refused.statusCode).toBe(409);
    expect(textOf(refused.body)).toContain('already linked to another account');

    await browser.get('/settings/account');
    const other = await browser.post('/settings/account/sso/unlink', { identity: String(bobIdentity.id) });
    expect(other.statusCode).toBe(404);
    const rows = await c.db.selectFrom('user_identities').select('user_id').execute();
    expect(rows).toEqual([{ user_id: bob.user.id }]);
    expect(eve.user.id).not.toBe(bob.user.id);
  });

  it('keeps the last link with OIDC_ONLY', async () => {
    const c = await app({ OIDC_ONLY: 'true' });
    const bob = await createUser(c, { name: 'bob' });
    await linkIdentity(c, bob.user.id, 'bob-sub');
    fake.user = { sub: 'bob-sub' };
    const browser = new WebClient(c.app);
    await browser.get(await ssoFrom(browser));
    const page = await browser.get('/settings/account');
    expect(textOf(page.body)).toContain('this link stays');
    expect(page.body).not.toContain('action="/settings/account/sso/unlink"');
    const { id } = await c.db.selectFrom('user_identities').select('id').executeTakeFirstOrThrow();
    const refused = await browser.post('/settings/account/sso/unlink', { identity: String(id) });
    expect(refused.statusCode).toBe(409);
    expect(await identityCount(c)).toBe(1);
  });
});

describe('configuration', () => {
  it('stops the start with one line when the issuer does not answer', async () => {
    const config = loadConfig({
      DATABASE_URL: 'sqlite::memory:',
      OIDC_ISSUER_URL: 'http://127.0.0.1:1',
      OIDC_CLIENT_ID: 'x',
    });
    const error = await buildApp({ config, db: undefined as never, tmdb: null, logger: false }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(
      /^OIDC_ISSUER_URL: no OpenID provider at http:\/\/127\.0\.0\.1:1 /,
    );
    expect((error as Error).message).not.toContain('\n');
  });

  it('stops the start when the issuer’s document names another issuer', async () => {
    const config = loadConfig({
      DATABASE_URL: 'sqlite::memory:',
      OIDC_ISSUER_URL: `${fake.issuer}/elsewhere`,
      OIDC_CLIENT_ID: 'x',
    });
    const error = await buildApp({ config, db: undefined as never, tmdb: null, logger: false }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigError);
  });
});

describe('the log', () => {
  it('says why a sign-in was refused, without the code, the state or a token', async () => {
    const database = await createTestDatabase();
    const lines: string[] = [];
    const config = loadConfig({
      DATABASE_URL: database.url,
      APP_URL: 'http://cinelog.test',
      IMDB_RATINGS_URL: '',
      IMAGE_CACHE: 'false',
      ...fake.env({ OIDC_AUTO_REGISTER: 'true' }),
    });
    const logged = await buildApp({
      config,
      db: database.db,
      tmdb: null,
      clock: new TestClock(),
      logger: { level: 'info', stream: { write: (line: string) => lines.push(line) } },
    });
    try {
      await database.db
        .insertInto('users')
        .values({
          name: 'admin',
          email: 'admin@example.test',
          password_hash: 'x',
          is_admin: 1,
          privacy: 'users',
          timezone: 'UTC',
          watchlist_auto_remove: 1,
          created_at: '2024-06-01T00:00:00.000Z',
          updated_at: '2024-06-01T00:00:00.000Z',
        })
        .execute();
      for (const { tampering, logged: reason } of TAMPERED) {
        fake.tampering = tampering;
        lines.length = 0;
        const browser = new WebClient(logged);
        const callback = await ssoFrom(browser);
        const answer = await browser.get(callback);
        expect(answer.statusCode).toBe(400);
        const refusal = lines
          .map((line) => JSON.parse(line))
          .find((line) => line.msg === 'single sign-on refused');
        expect(refusal?.reason, JSON.stringify(tampering)).toMatch(reason);
        const query = new URL(callback, 'http://cinelog.test').searchParams;
        const all = lines.join('\n');
        expect(all).not.toContain(query.get('code'));
        expect(all).not.toContain(query.get('state'));
        expect(all).not.toContain(FAKE_CLIENT_SECRET);
        expect(all).not.toContain('eyJ'); // no JWT
      }
    } finally {
      await logged.close();
      await database.destroy();
    }
  });
});
