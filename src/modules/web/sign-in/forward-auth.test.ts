import { afterEach, describe, expect, it } from 'vitest';
import { createUser, setupTestApp, type TestContext } from '../../../../test/harness.js';
import { TEST_SECRET_KEY, turnOnTwoFactor } from '../../../../test/two-factor.js';
import { signedInClient, textOf, WebClient } from '../../../../test/web-client.js';

// Forward auth (AUTH_PROXY_*, docs/reverse-proxy.md): a reverse proxy that signed the user in names
// them in a header, trusted only from the proxy's own addresses (the TCP peer).

const PROXY_ENV = {
  AUTH_PROXY_HEADER: 'Remote-User',
  AUTH_PROXY_EMAIL_HEADER: 'Remote-Email',
  AUTH_PROXY_TRUSTED: '127.0.0.1, 10.0.0.0/8 fd00::/8',
};

let ctx: TestContext;
let lines: string[];

async function start(env: Record<string, string> = {}) {
  lines = [];
  ctx = await setupTestApp({
    env: { ...PROXY_ENV, ...env },
    logger: { level: 'info', stream: { write: (line: string) => lines.push(line) } },
  });
  await createUser(ctx, { name: 'ada', isAdmin: true });
  await createUser(ctx, { name: 'bob' });
}
afterEach(() => ctx?.close());

/** A browser behind the proxy: every request comes from `address` with the proxy's headers. */
const behindProxy = (user: string, address = '127.0.0.1', extra: Record<string, string> = {}) =>
  new WebClient(ctx.app, address, { 'remote-user': user, ...extra });

const sessionRows = () => ctx.db.selectFrom('sessions').select(['user_id']).execute();
const warnings = () =>
  lines
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((l) => l.forwardAuth === 'untrusted');

describe('a trusted proxy names the user', () => {
  it('signs them in on the first request with a session cookie, which works for a form with its CSRF token', async () => {
    await start();
    const browser = behindProxy('bob');
    const home = await browser.get('/');
    expect(home.statusCode).toBe(200);
    expect(textOf(home.body)).toContain('Signed in as bob');
    const cookie = home.cookies.find((c) => c.name === 'cinelog_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    const bob = await ctx.users.findByName('bob');
    expect(await sessionRows()).toEqual([{ user_id: bob!.id }]);

    // Later requests use the session: no new one per request.
    await browser.get('/settings/tokens');
    expect(await sessionRows()).toHaveLength(1);

    const noToken = await browser.post('/settings/tokens', { name: 'Kodi', expiry: '30', _csrf: '' });
    expect(noToken.statusCode).toBe(403);
    expect(textOf(noToken.body)).toContain('This form has expired');
    const created = await browser.post('/settings/tokens', { name: 'Kodi', expiry: '30' });
    expect(created.statusCode).toBe(200);
    const tokens = await ctx.db
      .selectFrom('api_tokens')
      .select('name')
      .where('user_id', '=', bob!.id)
      .execute();
    expect(tokens.map((t) => t.name)).toContain('Kodi');
  });

  it('asks no two-factor code: the proxy did the sign-in', async () => {
    await start({ SECRET_KEY: TEST_SECRET_KEY });
    await turnOnTwoFactor(await signedInClient(ctx.app, 'bob', { address: '192.0.2.50' }), ctx.clock);
    const home = await behindProxy('bob').get('/');
    expect(home.statusCode).toBe(200);
    expect(textOf(home.body)).toContain('Signed in as bob');
  });

  it('finds the account whatever the letter case of the name', async () => {
    await start();
    const home = await behindProxy('BOB').get('/');
    expect(textOf(home.body)).toContain('Signed in as bob');
  });

  it("keeps a session it made when a later trusted request comes without the header (today's rules)", async () => {
    await start();
    const browser = behindProxy('bob');
    await browser.get('/');
    const plain = new WebClient(ctx.app, '127.0.0.1');
    for (const [name, value] of browser.cookies) plain.cookies.set(name, value);
    expect(textOf((await plain.get('/')).body)).toContain('Signed in as bob');
    // An empty header (a proxy that signed nobody in) is no header either.
    const empty = new WebClient(ctx.app, '127.0.0.1', { 'remote-user': ' ' });
    expect((await empty.get('/')).headers.location).toBe('/login');
  });

  it('ends the session when the header names another user, and signs that one in', async () => {
    await start();
    const browser = behindProxy('bob');
    await browser.get('/settings/tokens');
    const bobCookie = browser.cookies.get('cinelog_session');
    browser.headers['remote-user'] = 'ada';
    const page = await browser.get('/');
    expect(textOf(page.body)).toContain('Signed in as ada');
    const ada = await ctx.users.findByName('ada');
    expect(await sessionRows()).toEqual([{ user_id: ada!.id }]);
    expect(browser.cookies.get('cinelog_session')).not.toBe(bobCookie);

    // A form from a page of the user before is not sent as the new one.
    await browser.get('/settings/tokens');
    browser.headers['remote-user'] = 'bob';
    const form = await browser.post('/settings/tokens', { name: 'Sent as whom?', expiry: '30' });
    expect(form.statusCode).toBe(409);
    expect(textOf(form.body)).toContain('you are signed in as bob');
    expect(
      await ctx.db.selectFrom('api_tokens').where('name', '=', 'Sent as whom?').selectAll().execute(),
    ).toEqual([]);
    expect(textOf((await browser.get('/')).body)).toContain('Signed in as bob');
  });

  it('matches IPv4 networks, IPv6 addresses and networks, and IPv4-mapped IPv6 peers', async () => {
    await start({ AUTH_PROXY_TRUSTED: '10.0.0.0/8, fd00::/8, ::1, 192.168.1.5' });
    for (const address of ['10.20.30.40', 'fd00::5', '::1', '::ffff:10.1.2.3', '192.168.1.5']) {
      const page = await behindProxy('bob', address).get('/');
      expect(textOf(page.body), address).toContain('Signed in as bob');
    }
    for (const address of ['11.0.0.1', 'fe80::1', '::2', '192.168.1.6', '127.0.0.1']) {
      const page = await behindProxy('bob', address).get('/');
      expect(page.headers.location, address).toBe('/login');
    }
  });
});

describe('a request from anywhere else', () => {
  it('is anonymous, and its address is logged once (without the name)', async () => {
    await start();
    const stranger = behindProxy('ada', '192.0.2.7');
    for (let i = 0; i < 3; i++) {
      const page = await stranger.get('/');
      expect(page.statusCode).toBe(303);
      expect(page.headers.location).toBe('/login');
      expect(page.cookies.find((c) => c.name === 'cinelog_session')).toBeUndefined();
    }
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toMatchObject({ level: 40, peer: '192.0.2.7' });
    expect(String(warnings()[0]?.msg)).toContain('not in AUTH_PROXY_TRUSTED');
    expect(JSON.stringify(warnings())).not.toContain('ada');

    await behindProxy('ada', '192.0.2.8').get('/login');
    expect(warnings().map((w) => w.peer)).toEqual(['192.0.2.7', '192.0.2.8']);
    expect(await sessionRows()).toEqual([]);
  });

  it('is judged by the TCP peer, never by X-Forwarded-For (TRUST_PROXY=true)', async () => {
    await start({ TRUST_PROXY: 'true' });
    const spoofed = behindProxy('ada', '192.0.2.9', { 'x-forwarded-for': '127.0.0.1' });
    expect((await spoofed.get('/')).headers.location).toBe('/login');
    // The proxy itself, with the real client's address forwarded: trusted.
    const real = behindProxy('bob', '127.0.0.1', { 'x-forwarded-for': '203.0.113.4' });
    expect(textOf((await real.get('/')).body)).toContain('Signed in as bob');
  });

  it('over a real socket: the peer address is what the check reads', async () => {
    await start({ AUTH_PROXY_TRUSTED: '127.0.0.1, ::1' });
    await ctx.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = ctx.app.server.address() as { port: number };
    const answer = await fetch(`http://127.0.0.1:${port}/`, {
      headers: { 'remote-user': 'bob', 'x-forwarded-for': '198.51.100.1' },
      redirect: 'manual',
    });
    expect(answer.status).toBe(200);
    expect(textOf(await answer.text())).toContain('Signed in as bob');
    expect(answer.headers.get('set-cookie')).toContain('cinelog_session=');
  });
});

describe('a name without an account', () => {
  it('gets a 403 page and no session without AUTH_PROXY_AUTO_REGISTER', async () => {
    await start();
    const browser = behindProxy('carol');
    const page = await browser.get('/');
    expect(page.statusCode).toBe(403);
    expect(textOf(page.body)).toContain('There is no cinelog account named carol: ask the administrator');
    expect(page.headers['content-security-policy']).toContain("default-src 'self'");
    expect(browser.cookies.has('cinelog_session')).toBe(false);
    expect(await ctx.users.findByName('carol')).toBeUndefined();
    expect(await sessionRows()).toEqual([]);
  });

  it('ends the session of the user signed in before', async () => {
    await start();
    const browser = behindProxy('bob');
    await browser.get('/');
    browser.headers['remote-user'] = 'carol';
    expect((await browser.get('/')).statusCode).toBe(403);
    expect(browser.cookies.has('cinelog_session')).toBe(false);
    expect(await sessionRows()).toEqual([]);
  });

  it('gets an account with AUTH_PROXY_AUTO_REGISTER=true, once, with the e-mail header and no usable password', async () => {
    await start({ AUTH_PROXY_AUTO_REGISTER: 'true' });
    const first = behindProxy('carol', '127.0.0.1', { 'remote-email': ' Carol@Example.Test ' });
    const page = await first.get('/');
    expect(page.statusCode).toBe(200);
    expect(textOf(page.body)).toContain('Signed in as carol');
    const carol = await ctx.users.findByName('carol');
    expect(carol).toMatchObject({ email: 'carol@example.test', isAdmin: false, timezone: 'UTC' });
    expect(await ctx.users.verifyLogin('carol', '')).toBeNull();
    const row = await ctx.db
      .selectFrom('users')
      .select('password_hash')
      .where('name', '=', 'carol')
      .executeTakeFirst();
    expect(row?.password_hash).toMatch(/^\$argon2id\$/);

    // Again, from another browser, and two at once: the same account.
    const again = await Promise.all([behindProxy('carol').get('/'), behindProxy('Carol').get('/')]);
    for (const answer of again) expect(textOf(answer.body)).toContain('Signed in as carol');
    const carols = await ctx.db.selectFrom('users').select('id').where('name', '=', 'carol').execute();
    expect(carols).toEqual([{ id: carol!.id }]);
    expect(await ctx.users.count()).toBe(3);
  });

  it('makes at most one account when two first requests come at once', async () => {
    await start({ AUTH_PROXY_AUTO_REGISTER: 'true' });
    const answers = await Promise.all(Array.from({ length: 5 }, () => behindProxy('dora').get('/')));
    for (const answer of answers) expect(textOf(answer.body).slice(0, 400)).toContain('Signed in as dora');
    expect(await ctx.db.selectFrom('users').select('id').where('name', '=', 'dora').execute()).toHaveLength(
      1,
    );
  });

  it('gets a placeholder address without the e-mail header', async () => {
    await start({ AUTH_PROXY_AUTO_REGISTER: 'true' });
    await behindProxy('dave').get('/');
    expect((await ctx.users.findByName('dave'))?.email).toBe('dave@forward-auth.invalid');
  });

  it('refuses a name that is not a valid user name, and a bad or taken e-mail, making no account', async () => {
    await start({ AUTH_PROXY_AUTO_REGISTER: 'true' });
    const invalid = await behindProxy('eve smith').get('/');
    expect(invalid.statusCode).toBe(403);
    expect(textOf(invalid.body)).toContain('"eve smith", which is not a valid cinelog user name');
    const long = await behindProxy('x'.repeat(65)).get('/');
    expect(long.statusCode).toBe(403);

    const badEmail = await behindProxy('erin', '127.0.0.1', { 'remote-email': 'not an address' }).get('/');
    expect(badEmail.statusCode).toBe(403);
    expect(textOf(badEmail.body)).toContain('email must be an e-mail address');
    const taken = await behindProxy('erin', '127.0.0.1', { 'remote-email': 'bob@example.test' }).get('/');
    expect(taken.statusCode).toBe(403);
    expect(textOf(taken.body)).toContain('a user with this email already exists');
    expect(await ctx.users.count()).toBe(2);
    expect(await sessionRows()).toEqual([]);
  });
});

describe('what forward auth leaves alone', () => {
  it('the API: the header from a trusted address without a token is a 401', async () => {
    await start();
    for (const url of ['/api/authentication/token', '/api/users/bob/history/movies']) {
      const answer = await ctx.app.inject({
        method: 'GET',
        url,
        headers: { 'remote-user': 'bob' },
        remoteAddress: '127.0.0.1',
      });
      expect(answer.statusCode, url).toBe(401);
      expect(answer.headers['www-authenticate']).toBe('Bearer');
      expect(answer.headers['set-cookie']).toBeUndefined();
    }
    expect(await sessionRows()).toEqual([]);
  });

  it('first-run setup: while nobody has an account, the header is not used', async () => {
    lines = [];
    ctx = await setupTestApp({ env: { ...PROXY_ENV, AUTH_PROXY_AUTO_REGISTER: 'true' } });
    const page = await behindProxy('ada').get('/');
    expect(page.headers.location).toBe('/setup');
    expect(await ctx.users.count()).toBe(0);
  });
});

describe('signing out', () => {
  it("ends the session; with AUTH_PROXY_LOGOUT_URL it goes on to the proxy's logout", async () => {
    await start({ AUTH_PROXY_LOGOUT_URL: 'https://auth.example.test/logout' });
    const browser = behindProxy('bob');
    const home = await browser.get('/');
    expect(home.headers['content-security-policy']).toContain("form-action 'self' https://auth.example.test");
    const out = await browser.post('/logout');
    expect(out.statusCode).toBe(303);
    expect(out.headers.location).toBe('https://auth.example.test/logout');
    expect(await sessionRows()).toEqual([]);
  });

  it('without it, on /login, where the proxy signs the browser in again at once', async () => {
    await start();
    const browser = behindProxy('bob');
    await browser.get('/');
    const out = await browser.post('/logout');
    expect(out.headers.location).toBe('/login');
    expect((await browser.follow(out)).headers.location).toBe('/');
    expect(await sessionRows()).toHaveLength(1);
  });
});
