import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createUser, setupTestApp, type TestContext } from '../../../../test/harness.js';
import { textOf, WebClient } from '../../../../test/web-client.js';

let ctx: TestContext;
let browser: WebClient;

beforeEach(async () => {
  ctx = await setupTestApp();
  browser = new WebClient(ctx.app);
});
afterEach(() => ctx.close());

const ADMIN = {
  name: 'ada',
  email: 'ada@example.test',
  password: 'a long enough password',
  passwordConfirm: 'a long enough password',
  timezone: 'Europe/Berlin',
};

describe('first-run setup', () => {
  it('sends / to the setup page while nobody has an account', async () => {
    const response = await browser.get('/');
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/setup');
    const page = await browser.follow(response);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<label for="name">User name</label>');
    expect(page.headers['content-security-policy']).toContain("default-src 'self'");
    expect(page.headers['cache-control']).toBe('no-store');
    // helmet's other headers, set once per answer (and on a redirect too)
    for (const answer of [page, response]) {
      expect(answer.headers).toMatchObject({
        'cross-origin-opener-policy': 'same-origin',
        'cross-origin-resource-policy': 'same-origin',
        'origin-agent-cluster': '?1',
        'referrer-policy': 'same-origin',
        'x-content-type-options': 'nosniff',
        'x-dns-prefetch-control': 'off',
        'x-download-options': 'noopen',
        'x-frame-options': 'SAMEORIGIN',
        'x-permitted-cross-domain-policies': 'none',
        'x-xss-protection': '0',
      });
      expect(answer.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    }
  });

  it('creates the administrator, signs them in, and closes itself', async () => {
    const created = await browser.submit('/setup', '/setup', ADMIN);
    expect(created.statusCode).toBe(303);
    expect(created.headers.location).toBe('/');
    const home = await browser.follow(created);
    expect(home.statusCode).toBe(200);
    expect(textOf(home.body)).toContain('Signed in as ada');
    const admin = await ctx.users.findByName('ada');
    expect(admin).toMatchObject({ isAdmin: true, email: 'ada@example.test', timezone: 'Europe/Berlin' });

    const again = new WebClient(ctx.app);
    expect((await again.get('/setup')).headers.location).toBe('/login');
    const late = await again.submit('/login', '/setup', {
      ...ADMIN,
      name: 'mallory',
      email: 'm@example.test',
    });
    expect(late.statusCode).toBe(303);
    expect(late.headers.location).toBe('/login');
    expect(await ctx.users.count()).toBe(1);
  });

  it('keeps the form and says what is wrong, creating nobody', async () => {
    const response = await browser.submit('/setup', '/setup', {
      ...ADMIN,
      passwordConfirm: 'something else',
    });
    expect(response.statusCode).toBe(400);
    expect(textOf(response.body)).toContain('the two passwords differ');
    expect(response.body).toContain('value="ada@example.test"');
    expect(response.body).not.toContain(ADMIN.password);
    const short = await browser.post('/setup', { ...ADMIN, password: 'short', passwordConfirm: 'short' });
    expect(short.statusCode).toBe(400);
    expect(textOf(short.body)).toContain('password must be 8');
    expect(await ctx.users.count()).toBe(0);
  });

  it('refuses a form without a valid CSRF token', async () => {
    await browser.get('/setup');
    for (const token of ['', 'forged-token']) {
      const response = await browser.post('/setup', { ...ADMIN, _csrf: token });
      expect(response.statusCode).toBe(403);
      expect(textOf(response.body)).toContain('This form has expired');
    }
    const stranger = new WebClient(ctx.app);
    await browser.get('/setup');
    // A token from someone else's page does not match this browser's CSRF cookie.
    const crossSite = await stranger.post('/setup', { ...ADMIN, _csrf: browser.csrfToken() });
    expect(crossSite.statusCode).toBe(403);
    expect(await ctx.users.count()).toBe(0);
  });
});

describe('signing in and out', () => {
  beforeEach(async () => {
    await createUser(ctx, { name: 'bob' });
  });

  it('signs in by name or e-mail, and out again', async () => {
    const page = await browser.get('/');
    expect(page.headers.location).toBe('/login');
    const signedIn = await browser.submit('/login', '/login', {
      login: 'BOB',
      password: 'correct horse battery',
    });
    expect(signedIn.statusCode).toBe(303);
    expect(signedIn.headers.location).toBe('/');
    const session = signedIn.cookies.find((c) => c.name === 'cinelog_session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    expect(session?.expires).toBeUndefined();
    expect(session?.secure).toBeUndefined();
    const stored = await ctx.db.selectFrom('sessions').select('token_hash').execute();
    expect(stored).toHaveLength(1);
    expect(stored[0]?.token_hash).not.toBe(session?.value);
    expect(textOf((await browser.get('/')).body)).toContain('Signed in as bob');

    const out = await browser.post('/logout');
    expect(out.headers.location).toBe('/login');
    expect(browser.cookies.has('cinelog_session')).toBe(false);
    expect(await ctx.db.selectFrom('sessions').selectAll().execute()).toHaveLength(0);
    expect((await browser.get('/')).headers.location).toBe('/login');

    const byEmail = await browser.submit('/login', '/login', {
      login: 'bob@example.test',
      password: 'correct horse battery',
    });
    expect(byEmail.statusCode).toBe(303);
  });

  it('remembers the sign-in for 30 days when asked to', async () => {
    const signedIn = await browser.submit('/login', '/login', {
      login: 'bob',
      password: 'correct horse battery',
      remember: 'on',
    });
    const session = signedIn.cookies.find((c) => c.name === 'cinelog_session');
    expect(session?.expires?.toISOString()).toBe('2024-07-15T12:00:00.000Z');
  });

  it('answers a wrong password with the form again, the same for an unknown name', async () => {
    const wrong = await browser.submit('/login', '/login', { login: 'bob', password: 'not the password' });
    const unknown = await browser.post('/login', { login: 'nobody', password: 'not the password' });
    for (const response of [wrong, unknown]) {
      expect(response.statusCode).toBe(401);
      expect(textOf(response.body)).toContain('do not match an account');
      expect(response.cookies.find((c) => c.name === 'cinelog_session')).toBeUndefined();
    }
  });

  it('limits wrong passwords per account and sign-ins per address', async () => {
    await browser.get('/login');
    for (let i = 0; i < 10; i++) {
      expect((await browser.post('/login', { login: 'bob', password: 'wrong password' })).statusCode).toBe(
        401,
      );
    }
    const limited = await browser.post('/login', { login: 'bob', password: 'another wrong one' });
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBe('900');
    expect(limited.cookies.find((c) => c.name === 'cinelog_session')).toBeUndefined();

    const elsewhere = new WebClient(ctx.app, '10.0.0.2');
    await elsewhere.get('/login');
    for (let i = 0; i < 20; i++) {
      await elsewhere.post('/login', { login: `someone${i}`, password: 'wrong password' });
    }
    await createUser(ctx, { name: 'carol' });
    // An address over its own limit gets no answer about any password, a right one included.
    expect(
      (await elsewhere.post('/login', { login: 'carol', password: 'correct horse battery' })).statusCode,
    ).toBe(429);

    ctx.clock.advance(15 * 60_000);
    await elsewhere.get('/login');
    expect(
      (await elsewhere.post('/login', { login: 'carol', password: 'correct horse battery' })).statusCode,
    ).toBe(303);
  });

  it('counts wrong passwords per account, whatever name, e-mail or letter case was typed', async () => {
    await browser.get('/login');
    const spellings = ['bob', 'BOB', 'bob@example.test', 'Bob@Example.Test', ' bob '];
    for (let i = 0; i < 10; i++) {
      const login = spellings[i % spellings.length]!;
      expect((await browser.post('/login', { login, password: 'wrong password' })).statusCode).toBe(401);
    }
    const other = new WebClient(ctx.app, '10.0.0.3');
    await other.get('/login');
    expect((await other.post('/login', { login: 'bob@example.test', password: 'wrong' })).statusCode).toBe(
      429,
    );
  });

  it('lets the owner in with the right password while someone else is guessing theirs', async () => {
    // The 429 page has no form: every guess reads the sign-in page first, as a script would.
    const attacker = new WebClient(ctx.app, '10.0.0.66');
    const guess = (password: string) => attacker.submit('/login', '/login', { login: 'bob', password });
    for (let i = 0; i < 10; i++) expect((await guess(`guess ${i}`)).statusCode).toBe(401);
    expect((await guess('guess 11')).statusCode).toBe(429);

    for (const address of ['10.0.0.7', '10.0.0.66']) {
      const owner = new WebClient(ctx.app, address);
      const signedIn = await owner.submit('/login', '/login', {
        login: 'bob',
        password: 'correct horse battery',
      });
      expect(signedIn.statusCode).toBe(303);
      expect(signedIn.cookies.find((c) => c.name === 'cinelog_session')).toBeDefined();
    }
    // A wrong guess is still refused without saying more than "too many".
    expect((await guess('guess 12')).statusCode).toBe(429);
  });

  it('never lets a session cookie authenticate the API', async () => {
    await browser.submit('/login', '/login', { login: 'bob', password: 'correct horse battery' });
    const response = await ctx.app.inject({
      method: 'GET',
      url: '/api/authentication/token',
      cookies: Object.fromEntries(browser.cookies),
    });
    expect(response.statusCode).toBe(401);
  });

  it('keeps sign-up closed unless ENABLE_REGISTRATION is set', async () => {
    expect((await browser.get('/register')).statusCode).toBe(404);
    expect(textOf((await browser.get('/login')).body)).not.toContain('Create an account');
  });
});

describe('open registration', () => {
  it('lets anyone create a normal account with ENABLE_REGISTRATION=true', async () => {
    await ctx.close();
    ctx = await setupTestApp({ env: { ENABLE_REGISTRATION: 'true' } });
    browser = new WebClient(ctx.app);
    await createUser(ctx, { name: 'admin', isAdmin: true });
    expect(textOf((await browser.get('/login')).body)).toContain('Create an account');
    const created = await browser.submit('/register', '/register', {
      ...ADMIN,
      name: 'dora',
      email: 'dora@example.test',
    });
    expect(created.statusCode).toBe(303);
    expect(await ctx.users.findByName('dora')).toMatchObject({ isAdmin: false });
    expect(textOf((await browser.get('/')).body)).toContain('Signed in as dora');
  });
});

describe('over https', () => {
  it('marks every cookie Secure and sends Strict-Transport-Security when APP_URL is https', async () => {
    await ctx.close();
    ctx = await setupTestApp({ env: { APP_URL: 'https://movies.example.test' } });
    browser = new WebClient(ctx.app);
    await createUser(ctx, { name: 'bob' });
    const page = await browser.get('/login');
    expect(page.headers['strict-transport-security']).toContain('max-age=');
    expect(page.headers['content-security-policy']).toContain('upgrade-insecure-requests');
    const signedIn = await browser.post('/login', {
      login: 'bob',
      password: 'correct horse battery',
      remember: 'on',
    });
    expect(signedIn.statusCode).toBe(303);
    const cookies = [...page.cookies, ...signedIn.cookies];
    expect(cookies.map((c) => c.name)).toEqual(expect.arrayContaining(['cinelog_csrf', 'cinelog_session']));
    for (const cookie of cookies) expect(cookie, cookie.name).toMatchObject({ secure: true, httpOnly: true });
  });

  it('sends no Strict-Transport-Security over plain http', async () => {
    const page = await browser.get('/setup');
    expect(page.headers['strict-transport-security']).toBeUndefined();
    expect(page.headers['content-security-policy']).not.toContain('upgrade-insecure-requests');
  });
});

describe('the page after signing in', () => {
  beforeEach(async () => {
    await createUser(ctx, { name: 'bob' });
  });

  const signIn = (next: string) =>
    browser.submit('/login', '/login', { login: 'bob', password: 'correct horse battery', next });

  it('goes back to a path of this site, percent-encoded as a browser would', async () => {
    for (const [next, location] of [
      ['/settings/tokens', '/settings/tokens'],
      ['/settings/tokens?page=2#top', '/settings/tokens?page=2#top'],
      ['/\u6f22\u5b57', '/%E6%BC%A2%E5%AD%97'],
      ['/a b"<>', '/a%20b%22%3C%3E'],
      ['/x\u007f\u0001y', '/x%7F%01y'],
      ['/x?q=\u00e9\ud800', '/x?q=%C3%A9%EF%BF%BD'],
    ] as const) {
      const response = await new WebClient(ctx.app).submit('/login', '/login', {
        login: 'bob',
        password: 'correct horse battery',
        next,
      });
      expect(response.statusCode, next).toBe(303);
      expect(response.headers.location, next).toBe(location);
    }
  });

  it('never leaves the site, whatever the spelling', async () => {
    const outside = [
      '//evil.example/x',
      '/\t/evil.example',
      '/\n/evil.example',
      '/\\evil.example',
      '/\\/evil.example',
      '/.//evil.example',
      '/..//evil.example',
      '/%2e//evil.example',
      'https://evil.example/',
      'javascript:alert(1)',
      ' //evil.example',
      'evil.example',
    ];
    for (const next of outside) {
      const response = await new WebClient(ctx.app).submit('/login', '/login', {
        login: 'bob',
        password: 'correct horse battery',
        next,
      });
      expect(response.statusCode, JSON.stringify(next)).toBe(303);
      expect(response.headers.location, JSON.stringify(next)).toBe('/');
    }
    // Signed in already, the sign-in page redirects at once: the same rule.
    await signIn('/');
    for (const query of ['/%09/evil.example', '%2F%2Fevil.example', '/%5C/evil.example', '/%E6%BC%A2']) {
      const response = await browser.get(`/login?next=${query}`);
      expect(response.statusCode, query).toBe(303);
      expect(response.headers.location, query).toBe(query === '/%E6%BC%A2' ? '/%E6%BC%A2' : '/');
    }
  });
});

describe('pages', () => {
  it('answers an unknown page with an HTML 404 and the API with JSON', async () => {
    const page = await browser.get('/no/such/page');
    expect(page.statusCode).toBe(404);
    expect(page.headers['content-type']).toContain('text/html');
    const api = await ctx.app.inject({ url: '/api/no/such', headers: { accept: 'text/html' } });
    expect(api.statusCode).toBe(404);
    expect(api.json()).toMatchObject({ error: 'RouteNotFound' });
  });

  it('serves the stylesheet and script', async () => {
    const css = await browser.get('/assets/app.css');
    expect(css.statusCode).toBe(200);
    expect(css.headers['content-type']).toContain('text/css');
    expect((await browser.get('/assets/app.js')).headers['content-type']).toContain('javascript');
  });

  it('serves the logo (the favicon), the web app manifest and the font, and every page links them', async () => {
    const logo = await browser.get('/assets/logo.svg');
    expect(logo.headers['content-type']).toBe('image/svg+xml');
    expect(logo.body).toContain('<svg');
    const manifest = await browser.get('/assets/manifest.webmanifest');
    expect(manifest.headers['content-type']).toBe('application/manifest+json');
    expect(JSON.parse(manifest.body)).toMatchObject({
      name: 'cinelog',
      start_url: '/',
      display: 'standalone',
    });
    const font = await browser.get('/assets/inter-latin-wght-normal.woff2');
    expect(font.headers['content-type']).toBe('font/woff2');
    expect(font.headers['cache-control']).toContain('immutable');
    const page = (await browser.get('/forgot-password')).body;
    expect(page).toContain('<link rel="icon" href="/assets/logo.svg" type="image/svg+xml">');
    expect(page).toContain('<link rel="manifest" href="/assets/manifest.webmanifest">');
  });
});
