import { createHash } from 'node:crypto';
import { type AddressInfo, createServer } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeSmtp, linkIn, startFakeSmtp } from '../../../../test/fake-smtp.js';
import {
  createTestDatabase,
  createUser,
  setupTestApp,
  type TestContext,
  type TestUser,
} from '../../../../test/harness.js';
import { textOf, WebClient } from '../../../../test/web-client.js';
import { buildApp, loggerOptions } from '../../../app.js';
import { loadConfig } from '../../../config.js';
import { endSignInsOnChange } from '../../auth/credentials.js';
import { createUsersService } from '../../users/users.service.js';

const SENT_NOTICE =
  'If an account has this address, we have sent it a link to set a new password. The link works once, for one hour.';
const DONE_NOTICE = 'Your new password is set. All API tokens and sign-ins of the account were revoked.';
const OLD_PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'a brand new passphrase';
const HOUR = 3_600_000;

let smtp: FakeSmtp;
let ctx: TestContext;
let browser: WebClient;
let ada: TestUser;

beforeAll(async () => {
  smtp = await startFakeSmtp();
});
afterAll(() => smtp.close());

beforeEach(async () => {
  ctx = await setupTestApp({
    env: { SMTP_URL: smtp.url, MAIL_FROM: 'cinelog <noreply@cinelog.test>' },
  });
  browser = new WebClient(ctx.app);
  ada = await createUser(ctx);
});
afterEach(() => ctx.close());

const requestLink = (client: WebClient, email: string) =>
  client.submit('/forgot-password', '/forgot-password', { email });

/** Asks for a link for the user and returns the path of the link in the mail. */
async function linkPathFor(user: TestUser, client = new WebClient(ctx.app)): Promise<string> {
  const response = await requestLink(client, user.user.email);
  expect(response.statusCode).toBe(303);
  const link = linkIn(await smtp.waitForMail(user.user.email));
  return new URL(link).pathname;
}

/** Opens the mail's link in the browser, as a click does: the cookie, then the form page. */
async function openLink(client: WebClient, path: string) {
  return client.follow(await client.get(path));
}

const resetRows = () => ctx.db.selectFrom('password_resets').selectAll().orderBy('id').execute();
const apiStatus = async (token: string) =>
  (
    await ctx.app.inject({
      method: 'GET',
      url: '/api/authentication/token',
      headers: { authorization: `Bearer ${token}` },
    })
  ).statusCode;
const passwordWorks = async (user: TestUser, password: string) =>
  (await ctx.users.verifyLogin(user.user.name, password)) !== null;

describe('asking for a link', () => {
  it('shows the form', async () => {
    const page = await browser.get('/forgot-password');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<h1>Forgot your password?</h1>');
    expect(page.body).toContain('<label for="email">E-mail</label>');
    expect(page.body).toContain('<button type="submit">Send reset link</button>');
    expect(page.body).toContain('name="_csrf"');
  });

  it('answers an unknown address exactly as a known one, and mails only the known one', async () => {
    const unknown = await requestLink(new WebClient(ctx.app, '10.0.0.1'), 'nobody-here@example.test');
    const known = await requestLink(browser, ada.user.email);
    for (const response of [unknown, known]) {
      expect(response.statusCode).toBe(303);
      expect(response.headers.location).toBe('/forgot-password');
      expect(response.body).toBe('');
    }
    const cookies = (response: typeof known) =>
      (response.cookies as { name: string; value: string }[]).map((c) => `${c.name}=${c.value}`);
    expect(cookies(unknown)).toEqual(cookies(known));

    const page = await browser.follow(known);
    expect(textOf(page.body)).toContain(SENT_NOTICE);

    const mail = await smtp.waitForMail(ada.user.email);
    expect(mail.to).toEqual([ada.user.email]);
    expect(smtp.mails.filter((m) => m.to.includes('nobody-here@example.test'))).toEqual([]);
    const rows = await resetRows();
    expect(rows.map((row) => row.user_id)).toEqual([ada.user.id]);
  });

  it('mails the account a link to APP_URL/reset-password/<token> from MAIL_FROM; only its hash is stored', async () => {
    // Any letter case and spaces around: addresses are kept in lower case.
    const response = await requestLink(browser, ` ${ada.user.email.toUpperCase()} `);
    expect(response.statusCode).toBe(303);
    const mail = await smtp.waitForMail(ada.user.email);
    expect(mail.to).toEqual([ada.user.email]);
    expect(mail.envelopeFrom).toBe('noreply@cinelog.test');
    expect(mail.from).toContain('noreply@cinelog.test');
    expect(mail.subject).toBe('Set a new password for cinelog');
    const link = linkIn(mail);
    expect(link).toMatch(/^http:\/\/cinelog\.test\/reset-password\/[A-Za-z0-9_-]{43}$/);
    const token = link.split('/').pop() ?? '';

    const [row, ...others] = await resetRows();
    expect(others).toEqual([]);
    expect(row).toMatchObject({
      user_id: ada.user.id,
      token_hash: createHash('sha256').update(token).digest('hex'),
      created_at: ctx.clock.now().toISOString(),
      expires_at: new Date(ctx.clock.now().getTime() + HOUR).toISOString(),
      used_at: null,
    });
    expect(JSON.stringify(row)).not.toContain(token);
  });

  it('replaces an older link by a newer one', async () => {
    const first = await linkPathFor(ada);
    const second = await linkPathFor(ada);
    expect(second).not.toBe(first);
    expect((await openLink(new WebClient(ctx.app), first)).statusCode).toBe(400);
    expect((await openLink(new WebClient(ctx.app), second)).statusCode).toBe(200);
    expect(await resetRows()).toHaveLength(1);
  });

  it('refuses a form without a valid CSRF token, and sends nothing', async () => {
    await browser.get('/forgot-password');
    for (const token of ['', 'forged-token']) {
      const response = await browser.post('/forgot-password', { email: ada.user.email, _csrf: token });
      expect(response.statusCode).toBe(403);
      expect(textOf(response.body)).toContain('This form has expired');
    }
    expect(await resetRows()).toEqual([]);
    // The next mail to ada is the one of a valid request, not of a refused one.
    await linkPathFor(ada);
    expect(smtp.mails.filter((m) => m.to.includes(ada.user.email))).toHaveLength(1);
  });

  it('limits requests per e-mail address, from any client address', async () => {
    for (let i = 1; i <= 3; i++) {
      const response = await requestLink(new WebClient(ctx.app, `10.0.1.${i}`), ada.user.email);
      expect(response.statusCode).toBe(303);
      await smtp.waitForMail(ada.user.email);
    }
    const limited = await requestLink(new WebClient(ctx.app, '10.0.1.9'), ada.user.email);
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBe('3600');
    expect(textOf(limited.body)).toContain('Too many attempts');
    // An unknown address is limited just the same: a 429 tells nothing either.
    for (let i = 1; i <= 3; i++) {
      expect(
        (await requestLink(new WebClient(ctx.app, `10.0.2.${i}`), 'ghost@example.test')).statusCode,
      ).toBe(303);
    }
    expect((await requestLink(new WebClient(ctx.app, '10.0.2.9'), 'ghost@example.test')).statusCode).toBe(
      429,
    );
    // An hour later, it works again.
    ctx.clock.advance(HOUR + 1000);
    expect((await requestLink(new WebClient(ctx.app, '10.0.1.9'), ada.user.email)).statusCode).toBe(303);
    await smtp.waitForMail(ada.user.email);
  });

  it('limits requests per client address, whatever the e-mail address', async () => {
    const client = new WebClient(ctx.app, '10.0.3.1');
    for (let i = 1; i <= 10; i++) {
      expect((await requestLink(client, `someone${i}@example.test`)).statusCode).toBe(303);
    }
    const limited = await requestLink(client, ada.user.email);
    expect(limited.statusCode).toBe(429);
    // Another client address may still ask for ada.
    await linkPathFor(ada, new WebClient(ctx.app, '10.0.3.2'));
    expect(smtp.mails.filter((m) => m.to.includes(ada.user.email))).toHaveLength(1);
  });
});

describe('following the link', () => {
  it('moves the token into a cookie for /reset-password and out of the address bar', async () => {
    const path = await linkPathFor(ada);
    const token = path.split('/').pop() ?? '';
    const response = await browser.get(path);
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/reset-password');
    const setCookie = String(response.headers['set-cookie']);
    expect(setCookie).toContain(`cinelog_reset=${token}`);
    expect(setCookie).toContain('Path=/reset-password');
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Lax');

    const page = await browser.follow(response);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<h1>Set a new password</h1>');
    expect(page.body).toContain('<label for="password">New password</label>');
    expect(page.body).toContain('<label for="passwordConfirm">Repeat the new password</label>');
    expect(page.body).toContain('<button type="submit">Set new password</button>');
    expect(page.body).not.toContain(token);
  });

  it('says an unknown link is no longer valid, with a way to ask for a new one', async () => {
    for (const path of ['/reset-password/not-a-token', `/reset-password/${'A'.repeat(43)}`]) {
      const page = await openLink(new WebClient(ctx.app), path);
      expect(page.statusCode).toBe(400);
      expect(textOf(page.body)).toContain('This link is no longer valid');
      expect(page.body).toContain('<a href="/forgot-password">');
      expect(page.body).not.toContain('Set new password</button>');
    }
    expect((await new WebClient(ctx.app).get('/reset-password')).statusCode).toBe(400);
  });
});

describe('setting the new password', () => {
  it('revokes every API token and sign-in of the account, and only of that account', async () => {
    const secondToken = (await ctx.tokens.create(ada.user.id, 'second', '30')).value;
    const bob = await createUser(ctx);
    const laptop = new WebClient(ctx.app);
    const bobsLaptop = new WebClient(ctx.app);
    for (const [client, user] of [
      [laptop, ada],
      [bobsLaptop, bob],
    ] as const) {
      const signIn = await client.submit('/login', '/login', {
        login: user.user.name,
        password: OLD_PASSWORD,
      });
      expect(signIn.statusCode).toBe(303);
    }
    // Ada is signed in on the phone she resets from, too.
    await browser.submit('/login', '/login', { login: ada.user.name, password: OLD_PASSWORD });
    expect(await apiStatus(ada.token)).toBe(200);

    await openLink(browser, await linkPathFor(ada));
    const done = await browser.post('/reset-password', {
      password: NEW_PASSWORD,
      passwordConfirm: NEW_PASSWORD,
    });
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe('/login');
    expect(browser.cookies.has('cinelog_reset')).toBe(false);
    expect(browser.cookies.has('cinelog_session')).toBe(false);
    const login = await browser.follow(done);
    expect(textOf(login.body)).toContain(DONE_NOTICE);

    expect(await apiStatus(ada.token)).toBe(401);
    expect(await apiStatus(secondToken)).toBe(401);
    expect((await laptop.get('/settings/tokens')).headers.location).toMatch(/^\/login/);
    expect(await passwordWorks(ada, OLD_PASSWORD)).toBe(false);
    expect(await passwordWorks(ada, NEW_PASSWORD)).toBe(true);
    const signIn = await browser.submit('/login', '/login', { login: ada.user.name, password: NEW_PASSWORD });
    expect(signIn.headers.location).toBe('/');
    expect(textOf((await browser.follow(signIn)).body)).toContain(`Signed in as ${ada.user.name}`);

    // Bob keeps everything.
    expect(await apiStatus(bob.token)).toBe(200);
    expect((await bobsLaptop.get('/settings/tokens')).statusCode).toBe(200);
    expect(await passwordWorks(bob, OLD_PASSWORD)).toBe(true);
    const [row] = await resetRows();
    expect(row?.used_at).toBe(ctx.clock.now().toISOString());
  });

  it('works once: the link used again is refused', async () => {
    const path = await linkPathFor(ada);
    await openLink(browser, path);
    const cookie = browser.cookies.get('cinelog_reset') ?? '';
    expect(
      (await browser.post('/reset-password', { password: NEW_PASSWORD, passwordConfirm: NEW_PASSWORD }))
        .statusCode,
    ).toBe(303);

    const again = await openLink(browser, path);
    expect(again.statusCode).toBe(400);
    expect(textOf(again.body)).toContain('This link is no longer valid');
    // A form sent with the old cookie (an old tab) changes nothing.
    const oldTab = new WebClient(ctx.app);
    await oldTab.get('/forgot-password');
    oldTab.cookies.set('cinelog_reset', cookie);
    const refused = await oldTab.post('/reset-password', {
      password: 'yet another one!',
      passwordConfirm: 'yet another one!',
    });
    expect(refused.statusCode).toBe(400);
    expect(textOf(refused.body)).toContain('This link is no longer valid');
    expect(await passwordWorks(ada, NEW_PASSWORD)).toBe(true);
    expect(await passwordWorks(ada, 'yet another one!')).toBe(false);
  });

  it('lets only one of two simultaneous submissions through', async () => {
    const path = await linkPathFor(ada);
    const tabs = [new WebClient(ctx.app), new WebClient(ctx.app)];
    for (const tab of tabs) await openLink(tab, path);
    const passwords = ['first new password', 'second new password'];
    const responses = await Promise.all(
      tabs.map((tab, i) =>
        tab.post('/reset-password', { password: passwords[i]!, passwordConfirm: passwords[i]! }),
      ),
    );
    const statuses = responses.map((r) => r.statusCode);
    expect([...statuses].sort()).toEqual([303, 400]);
    const winner = passwords[statuses.indexOf(303)]!;
    const loser = passwords[statuses.indexOf(400)]!;
    expect(await passwordWorks(ada, winner)).toBe(true);
    expect(await passwordWorks(ada, loser)).toBe(false);
  });

  it('refuses the link an hour after it was sent', async () => {
    const path = await linkPathFor(ada);
    ctx.clock.advance(HOUR - 60_000);
    expect((await openLink(browser, path)).statusCode).toBe(200);
    ctx.clock.advance(60_000);
    const expired = await browser.get('/reset-password');
    expect(expired.statusCode).toBe(400);
    expect(textOf(expired.body)).toContain('This link is no longer valid');
    browser.cookies.set('cinelog_reset', path.split('/').pop() ?? '');
    await browser.get('/forgot-password');
    const refused = await browser.post('/reset-password', {
      password: NEW_PASSWORD,
      passwordConfirm: NEW_PASSWORD,
    });
    expect(refused.statusCode).toBe(400);
    expect(await passwordWorks(ada, OLD_PASSWORD)).toBe(true);
    expect(await apiStatus(ada.token)).toBe(200);
  });

  it('keeps the form and the link when the passwords differ or are too short', async () => {
    await openLink(browser, await linkPathFor(ada));
    const differ = await browser.post('/reset-password', {
      password: NEW_PASSWORD,
      passwordConfirm: 'something else',
    });
    expect(differ.statusCode).toBe(400);
    expect(textOf(differ.body)).toContain('the two passwords differ');
    expect(differ.body).toContain('<button type="submit">Set new password</button>');
    expect(differ.body).not.toContain(NEW_PASSWORD);
    const short = await browser.post('/reset-password', { password: 'short', passwordConfirm: 'short' });
    expect(short.statusCode).toBe(400);
    expect(textOf(short.body)).toContain('password must be 8');
    const missing = await browser.post('/reset-password', { password: NEW_PASSWORD });
    expect(missing.statusCode).toBe(400);
    await browser.get('/reset-password');
    expect(await passwordWorks(ada, OLD_PASSWORD)).toBe(true);
    expect(await apiStatus(ada.token)).toBe(200);
    expect((await resetRows())[0]?.used_at).toBeNull();

    const done = await browser.post('/reset-password', {
      password: NEW_PASSWORD,
      passwordConfirm: NEW_PASSWORD,
    });
    expect(done.statusCode).toBe(303);
    expect(await passwordWorks(ada, NEW_PASSWORD)).toBe(true);
  });

  it('refuses a form without a valid CSRF token, changing nothing', async () => {
    await openLink(browser, await linkPathFor(ada));
    for (const token of ['', 'forged-token']) {
      const response = await browser.post('/reset-password', {
        password: NEW_PASSWORD,
        passwordConfirm: NEW_PASSWORD,
        _csrf: token,
      });
      expect(response.statusCode).toBe(403);
    }
    expect(await passwordWorks(ada, OLD_PASSWORD)).toBe(true);
    expect(await apiStatus(ada.token)).toBe(200);
    expect((await browser.get('/reset-password')).statusCode).toBe(200);
  });

  it('refuses a form without the link cookie', async () => {
    await browser.get('/forgot-password');
    const response = await browser.post('/reset-password', {
      password: NEW_PASSWORD,
      passwordConfirm: NEW_PASSWORD,
    });
    expect(response.statusCode).toBe(400);
    expect(textOf(response.body)).toContain('This link is no longer valid');
    expect(await passwordWorks(ada, OLD_PASSWORD)).toBe(true);
  });
});

describe('without SMTP_URL', () => {
  it('names the command-line way and does not pretend to send', async () => {
    const plain = await setupTestApp();
    try {
      const client = new WebClient(plain.app);
      const bob = await createUser(plain);
      const page = await client.get('/forgot-password');
      expect(page.statusCode).toBe(200);
      expect(textOf(page.body)).toContain('E-mail is not set up');
      expect(textOf(page.body)).toContain('cinelog user reset-password');
      expect(page.body).not.toContain('Send reset link');

      await client.get('/login');
      const response = await client.post('/forgot-password', { email: bob.user.email });
      expect(response.statusCode).toBe(400);
      expect(textOf(response.body)).toContain('cinelog user reset-password');
      expect(textOf(response.body)).not.toContain(SENT_NOTICE);
      expect(client.cookies.has('cinelog_flash')).toBe(false);
      expect(await plain.db.selectFrom('password_resets').selectAll().execute()).toEqual([]);
    } finally {
      await plain.close();
    }
  });
});

describe('the log', () => {
  /** The app on a fresh database, logging through the production logger options into `lines`. */
  async function loggedApp(smtpUrl: string) {
    const lines: string[] = [];
    const database = await createTestDatabase();
    const config = loadConfig({
      DATABASE_URL: database.url,
      APP_URL: 'http://cinelog.test',
      SMTP_URL: smtpUrl,
      LOG_LEVEL: 'info',
    });
    const app = await buildApp({
      config,
      db: database.db,
      tmdb: null,
      clock: ctx.clock,
      logger: loggerOptions(config, { write: (line: string) => lines.push(line) }),
    });
    const users = createUsersService({
      credentials: endSignInsOnChange,
      db: database.db,
      clock: ctx.clock,
      defaultTimezone: 'UTC',
    });
    const user = await users.create({ name: 'logged', email: 'logged@example.test', password: OLD_PASSWORD });
    return {
      app,
      user,
      lines,
      async close() {
        await app.close();
        await database.destroy();
      },
    };
  }

  it('never holds the link token in the request lines', async () => {
    const { app, user, lines, close } = await loggedApp(smtp.url);
    try {
      const client = new WebClient(app);
      await client.submit('/forgot-password', '/forgot-password', { email: user.email });
      const path = new URL(linkIn(await smtp.waitForMail(user.email))).pathname;
      const token = path.split('/').pop() ?? '';
      await client.follow(await client.get(`${path}?utm=mail`));
      const done = await client.post('/reset-password', {
        password: NEW_PASSWORD,
        passwordConfirm: NEW_PASSWORD,
      });
      expect(done.statusCode).toBe(303);
      await client.get(path);

      const log = lines.join('');
      expect(log).toContain('"url":"/reset-password/***?utm=***"');
      expect(log).toContain('"url":"/reset-password/***"');
      expect(log).toContain('"url":"/reset-password"');
      expect(log).not.toContain(token);
      expect(log).not.toContain(NEW_PASSWORD);
    } finally {
      await close();
    }
  });

  it('records a mail that could not be sent, without its link, and still answers as usual', async () => {
    // A port nothing listens on.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));

    const { app, user, lines, close } = await loggedApp(`smtp://127.0.0.1:${port}`);
    let closed = false;
    try {
      const client = new WebClient(app);
      const response = await client.submit('/forgot-password', '/forgot-password', { email: user.email });
      expect(response.statusCode).toBe(303);
      // Closing waits for the mail on its way.
      await close();
      closed = true;
      const failures = lines
        .map((line) => JSON.parse(line))
        .filter((entry) => entry.msg === 'password reset mail not sent');
      expect(failures).toHaveLength(1);
      expect(failures[0]).toMatchObject({ level: 50, userId: user.id, code: 'ESOCKET' });
      expect(lines.join('')).not.toMatch(/reset-password\/[A-Za-z0-9_-]{43}/);
    } finally {
      if (!closed) await close();
    }
  });
});
