import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createUser, setupTestApp, type TestContext, type TestUser } from '../../../../test/harness.js';
import { textOf, WebClient } from '../../../../test/web-client.js';
import { hashToken } from '../../auth/token-format.js';
import { formatDateTime } from '../shell/format.js';

const PASSWORD = 'correct horse battery';
const TOKEN_PATTERN = /^cinelog_[A-Za-z0-9_-]{43}$/;

let ctx: TestContext;
let browser: WebClient;
let bob: TestUser;

beforeEach(async () => {
  ctx = await setupTestApp();
  browser = new WebClient(ctx.app);
  bob = await createUser(ctx, { name: 'bob' });
});
afterEach(() => ctx.close());

const signIn = (client: WebClient, login = 'bob') =>
  client.submit('/login', '/login', { login, password: PASSWORD });

/** GET /api/authentication/token with the token: 200 with its owner, or 401. */
const callApi = (token: string) =>
  ctx.app.inject({
    method: 'GET',
    url: '/api/authentication/token',
    headers: { authorization: `Bearer ${token}` },
  });

const newTokenOf = (html: string) => /<code id="new-token">([^<]*)<\/code>/.exec(html)?.[1];

const tokenRows = (userId: number) =>
  ctx.db.selectFrom('api_tokens').selectAll().where('user_id', '=', userId).orderBy('id').execute();

/** The cell texts of each row of the tokens table. */
function tableRows(html: string): string[][] {
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(html)?.[1] ?? '';
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((row) =>
    [...(row[1] ?? '').matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((cell) => textOf(cell[1] ?? '')),
  );
}

/** The address of the revoke form whose button is labelled "Revoke token <name>". */
function revokeAction(html: string, name: string): string {
  for (const form of html.matchAll(/<form method="post" action="([^"]+\/revoke)"[\s\S]*?<\/form>/g)) {
    if (form[0].includes(`aria-label="Revoke token ${name}"`)) return form[1] ?? '';
  }
  throw new Error(`no revoke button for ${name}`);
}

const hiddenField = (html: string, name: string) =>
  (new RegExp(`<input type="hidden" name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? '').replace(
    /&amp;/g,
    '&',
  );

describe('creating a token', () => {
  it('shows the value once, on the answer of the form, and it works on the API at once', async () => {
    await signIn(browser);
    const page = await browser.get('/settings/tokens');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<h1>API tokens</h1>');
    expect(page.body).toContain('<label for="name">Name</label>');
    expect(page.body).toContain('<label for="expiry">Expires</label>');
    expect(page.body).toContain('<option value="90" selected>In 90 days</option>');
    expect(page.body).toContain('<button type="submit">Create token</button>');
    expect(page.body).not.toContain('Your new token');

    const created = await browser.post('/settings/tokens', { name: 'Home Assistant', expiry: '30' });
    expect(created.statusCode).toBe(200);
    expect(created.headers.location).toBeUndefined();
    expect(created.headers['cache-control']).toBe('no-store');
    const value = newTokenOf(created.body) ?? '';
    expect(value).toMatch(TOKEN_PATTERN);
    expect(created.body).toContain('<h2 id="new-token-heading">Your new token</h2>');
    expect(created.body).toContain('<button type="button" data-copy="new-token" hidden>Copy</button>');
    expect(textOf(created.body)).toContain('Copy it now: it will not be shown again.');
    expect(JSON.stringify(created.headers)).not.toContain(value);

    const stored = (await tokenRows(bob.user.id)).find((row) => row.name === 'Home Assistant');
    expect(stored).toMatchObject({
      token_hash: hashToken(value),
      display_prefix: value.slice(0, 16),
      created_at: '2024-06-15T12:00:00.000Z',
      expires_at: '2024-07-15T12:00:00.000Z',
      revoked_at: null,
    });
    expect(JSON.stringify(await ctx.db.selectFrom('api_tokens').selectAll().execute())).not.toContain(value);

    const api = await callApi(value);
    expect(api.statusCode).toBe(200);
    expect(api.json()).toMatchObject({ user: { name: 'bob', id: bob.user.id } });

    // Never again: the list shows the prefix only.
    const later = await browser.get('/settings/tokens');
    expect(later.body).not.toContain(value);
    expect(later.body).not.toContain('Your new token');
    expect(tableRows(later.body)[0]).toEqual([
      'Home Assistant',
      value.slice(0, 16),
      '15 Jun 2024, 12:00',
      '15 Jun 2024, 12:00',
      '15 Jul 2024, 12:00',
      'active',
      'Revoke',
    ]);
  });

  it('expires in 30, 90 or 365 days, or never', async () => {
    await signIn(browser);
    for (const expiry of ['90', '365', 'never']) {
      const created = await browser.submit('/settings/tokens', '/settings/tokens', {
        name: `for ${expiry}`,
        expiry,
      });
      expect(created.statusCode).toBe(200);
    }
    const expiries = (await tokenRows(bob.user.id)).map((row) => [row.name, row.expires_at]);
    expect(expiries).toEqual([
      ['test token', null],
      ['for 90', '2024-09-13T12:00:00.000Z'],
      ['for 365', '2025-06-15T12:00:00.000Z'],
      ['for never', null],
    ]);
    const page = await browser.get('/settings/tokens');
    expect(tableRows(page.body).find((row) => row[0] === 'for never')?.[4]).toBe('Never');
  });

  it('answers an empty or too long name, or an unknown expiry, with the form and the reason', async () => {
    await signIn(browser);
    const cases = [
      { fields: { name: '   ', expiry: '30' }, says: 'token name must be 1 to 100 characters' },
      { fields: { name: 'x'.repeat(101), expiry: '365' }, says: 'token name must be 1 to 100 characters' },
      { fields: { name: 'backup', expiry: 'forever' }, says: 'choose when the token expires' },
    ];
    for (const { fields, says } of cases) {
      const response = await browser.submit('/settings/tokens', '/settings/tokens', fields);
      expect(response.statusCode).toBe(400);
      expect(response.body).toContain('role="alert"');
      expect(textOf(response.body)).toContain(`The token was not created: ${says}.`);
      expect(response.body).toContain(`value="${fields.name}"`);
      expect(response.body).toContain('aria-invalid="true"');
      expect(newTokenOf(response.body)).toBeUndefined();
    }
    const kept = await browser.submit('/settings/tokens', '/settings/tokens', {
      name: 'x'.repeat(101),
      expiry: '365',
    });
    expect(kept.body).toContain('<option value="365" selected>');

    const huge = await browser.submit('/settings/tokens', '/settings/tokens', {
      name: 'x'.repeat(2000),
      expiry: '30',
    });
    expect(huge.statusCode).toBe(400);
    const missing = await browser.submit('/settings/tokens', '/settings/tokens', { name: 'no expiry' });
    expect(missing.statusCode).toBe(400);

    expect((await tokenRows(bob.user.id)).map((row) => row.name)).toEqual(['test token']);
  });

  it('escapes the name everywhere it is shown', async () => {
    await signIn(browser);
    const name = '<script>alert(1)</script>"';
    const created = await browser.submit('/settings/tokens', '/settings/tokens', { name, expiry: '30' });
    expect(created.statusCode).toBe(200);
    expect(created.body).not.toContain('<script>alert(1)');
    expect(created.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;&quot;');
    expect(tableRows(created.body)[0]?.[0]).toBe(name);
  });
});

describe('the tokens table', () => {
  it('keeps expired and revoked tokens listed with their state; only active ones have Revoke', async () => {
    await ctx.tokens.create(bob.user.id, 'expiring', '30');
    const revoked = await ctx.tokens.create(bob.user.id, 'revoked', '365');
    await ctx.tokens.revoke(bob.user.id, revoked.token.displayPrefix);
    ctx.clock.advance(31 * 86_400_000);
    await signIn(browser);
    const page = await browser.get('/settings/tokens');
    expect(page.body).toContain('<caption>Your tokens</caption>');
    for (const header of ['Name', 'Prefix', 'Created', 'Last used', 'Expires', 'State']) {
      expect(page.body).toContain(`<th scope="col">${header}</th>`);
    }
    const rows = tableRows(page.body);
    expect(rows.map((row) => [row[0], row[5], row[6]])).toEqual([
      ['revoked', 'revoked', ''],
      ['expiring', 'expired', ''],
      ['test token', 'active', 'Revoke'],
    ]);
    expect(page.body).toContain('aria-label="Revoke token test token"');
    expect(page.body).not.toContain('aria-label="Revoke token expiring"');
    expect(page.body).toContain('<button type="submit" class="danger">Revoke all tokens</button>');
  });

  it("shows times readable in the user's time zone, the ISO value in <time datetime>", async () => {
    await ctx.users.update('bob', { timezone: 'Europe/Berlin' });
    await signIn(browser);
    await browser.submit('/settings/tokens', '/settings/tokens', { name: 'in Berlin', expiry: '30' });
    const page = await browser.get('/settings/tokens');
    expect(page.body).toContain('<time datetime="2024-06-15T12:00:00.000Z">15 Jun 2024, 14:00</time>');
    expect(page.body).toContain('<time datetime="2024-07-15T12:00:00.000Z">15 Jul 2024, 14:00</time>');
    expect(tableRows(page.body)[0]?.slice(0, 6)).toEqual([
      'in Berlin',
      expect.stringMatching(/^cinelog_/),
      '15 Jun 2024, 14:00',
      'Never',
      '15 Jul 2024, 14:00',
      'active',
    ]);
    expect(textOf(page.body)).toContain('Times are in your time zone, Europe/Berlin.');
  });

  it('never shows or revokes the tokens of another user', async () => {
    const alice = await createUser(ctx, { name: 'alice' });
    await ctx.tokens.create(alice.user.id, 'alice private', 'never');
    const [aliceToken] = await tokenRows(alice.user.id);
    await signIn(browser);
    const page = await browser.get('/settings/tokens');
    expect(page.body).not.toContain('alice private');
    expect(page.body).not.toContain(alice.token.slice(0, 16));
    expect(tableRows(page.body)).toHaveLength(1);

    const theirs = await browser.post(`/settings/tokens/${aliceToken?.id}/revoke`);
    expect(theirs.statusCode).toBe(404);
    const unknown = await browser.post('/settings/tokens/999999/revoke');
    expect(unknown.statusCode).toBe(404);
    expect(textOf(unknown.body)).toBe(textOf(theirs.body));
    for (const bad of ['abc', '0', '99999999999999999999']) {
      expect((await browser.post(`/settings/tokens/${bad}/revoke`)).statusCode).toBe(400);
    }
    await browser.submit('/settings/tokens/revoke-all', '/settings/tokens/revoke-all');

    expect((await tokenRows(alice.user.id)).map((row) => row.revoked_at)).toEqual([null, null]);
    expect((await callApi(alice.token)).statusCode).toBe(200);
    expect((await callApi(bob.token)).statusCode).toBe(401);
  });
});

describe('revoking', () => {
  it('revokes one token by its row: the next API call with it gets 401', async () => {
    await signIn(browser);
    const created = await browser.submit('/settings/tokens', '/settings/tokens', {
      name: 'script',
      expiry: 'never',
    });
    const value = newTokenOf(created.body) ?? '';
    expect((await callApi(value)).statusCode).toBe(200);

    const action = revokeAction(created.body, 'script');
    const revoked = await browser.post(action);
    expect(revoked.statusCode).toBe(303);
    expect(revoked.headers.location).toBe('/settings/tokens');
    expect((await callApi(value)).statusCode).toBe(401);
    expect((await callApi(bob.token)).statusCode).toBe(200);
    expect((await tokenRows(bob.user.id)).map((row) => [row.name, row.revoked_at])).toEqual([
      ['test token', null],
      ['script', '2024-06-15T12:00:00.000Z'],
    ]);

    const page = await browser.follow(revoked);
    expect(page.body).toContain('role="status"');
    expect(textOf(page.body)).toContain('Token "script" is revoked: programs using it get 401 from now on.');
    expect(tableRows(page.body).find((row) => row[0] === 'script')?.[5]).toBe('revoked');

    // Again is no failure and changes nothing.
    ctx.clock.advance(60_000);
    expect((await browser.post(action)).statusCode).toBe(303);
    expect((await tokenRows(bob.user.id))[1]?.revoked_at).toBe('2024-06-15T12:00:00.000Z');
  });

  it('revokes all tokens after a confirmation page', async () => {
    await ctx.tokens.create(bob.user.id, 'second', '90');
    const expired = await ctx.tokens.create(bob.user.id, 'old', '30');
    ctx.clock.advance(31 * 86_400_000);
    await signIn(browser);

    const page = await browser.get('/settings/tokens');
    expect(page.body).toMatch(
      /<form method="get" action="\/settings\/tokens\/revoke-all"[^>]*>\s*<button type="submit" class="danger">Revoke all tokens<\/button>/,
    );
    const confirm = await browser.get('/settings/tokens/revoke-all');
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain('<h1>Revoke all tokens?</h1>');
    expect(textOf(confirm.body)).toContain('You have 2 active tokens.');
    expect(confirm.body).toContain('<button type="submit" class="danger">Yes, revoke all tokens</button>');
    expect(confirm.body).toContain('<a href="/settings/tokens">Cancel</a>');
    // Reading the confirmation changes nothing.
    expect((await tokenRows(bob.user.id)).every((row) => row.revoked_at === null)).toBe(true);
    expect((await callApi(bob.token)).statusCode).toBe(200);

    const done = await browser.post('/settings/tokens/revoke-all');
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe('/settings/tokens');
    expect((await callApi(bob.token)).statusCode).toBe(401);
    expect((await tokenRows(bob.user.id)).map((row) => row.revoked_at)).toEqual([
      ctx.clock.now().toISOString(),
      ctx.clock.now().toISOString(),
      ctx.clock.now().toISOString(),
    ]);
    expect((await callApi(expired.value)).statusCode).toBe(401);

    const after = await browser.follow(done);
    expect(textOf(after.body)).toContain('All your tokens are revoked');
    expect(tableRows(after.body).map((row) => row[5])).toEqual(['revoked', 'revoked', 'revoked']);

    const none = await browser.get('/settings/tokens/revoke-all');
    expect(textOf(none.body)).toContain('You have no active tokens: nothing will change.');
    const again = await browser.post('/settings/tokens/revoke-all');
    expect(textOf((await browser.follow(again)).body)).toContain('You had no active tokens');
  });
});

describe('protection', () => {
  it('refuses every form without a valid CSRF token, changing nothing', async () => {
    await signIn(browser);
    const page = await browser.get('/settings/tokens');
    const action = revokeAction(page.body, 'test token');
    const other = new WebClient(ctx.app);
    await signIn(other, 'bob');
    await other.get('/settings/tokens');
    for (const _csrf of ['', 'forged-token', other.csrfToken()]) {
      const responses = [
        await browser.post('/settings/tokens', { name: 'sneaky', expiry: '30', _csrf }),
        await browser.post(action, { _csrf }),
        await browser.post('/settings/tokens/revoke-all', { _csrf }),
      ];
      for (const response of responses) {
        expect(response.statusCode).toBe(403);
        expect(newTokenOf(response.body)).toBeUndefined();
      }
    }
    expect((await tokenRows(bob.user.id)).map((row) => [row.name, row.revoked_at])).toEqual([
      ['test token', null],
    ]);
    expect((await callApi(bob.token)).statusCode).toBe(200);
  });

  it('sends strangers to the sign-in page, changing nothing', async () => {
    for (const path of ['/settings/tokens', '/settings/tokens/revoke-all']) {
      const response = await browser.get(path);
      expect(response.statusCode).toBe(303);
      expect(response.headers.location).toBe(`/login?next=${encodeURIComponent(path)}`);
    }
    const [token] = await tokenRows(bob.user.id);
    await browser.get('/login');
    const posts = [
      await browser.post('/settings/tokens', { name: 'stranger', expiry: '30' }),
      await browser.post(`/settings/tokens/${token?.id}/revoke`),
      await browser.post('/settings/tokens/revoke-all'),
    ];
    for (const response of posts) {
      expect(response.statusCode).toBe(303);
      expect(response.headers.location).toBe('/login');
      expect(newTokenOf(response.body)).toBeUndefined();
    }
    expect((await tokenRows(bob.user.id)).map((row) => [row.name, row.revoked_at])).toEqual([
      ['test token', null],
    ]);
  });

  it('returns to the page asked for, never to another site', async () => {
    const asked = await browser.get('/settings/tokens');
    expect(asked.headers.location).toBe('/login?next=%2Fsettings%2Ftokens');
    await browser.follow(asked);
    // A browser sends the sign-in form's hidden `next` field with it.
    const next = hiddenField(browser.page, 'next');
    expect(next).toBe('/settings/tokens');
    const back = await browser.post('/login', { login: 'bob', password: PASSWORD, next });
    expect(back.headers.location).toBe('/settings/tokens');
    expect((await browser.follow(back)).statusCode).toBe(200);

    const other = new WebClient(ctx.app);
    await other.get('/login?next=//evil.example/x');
    expect(hiddenField(other.page, 'next')).toBe('/');
    const response = await other.post('/login', {
      login: 'bob',
      password: PASSWORD,
      next: '//evil.example/x',
    });
    expect(response.headers.location).toBe('/');
  });
});

describe('formatDateTime', () => {
  it('reads as "21 Nov 2026, 14:05" in the given time zone, summer time included', () => {
    expect(formatDateTime('2026-11-21T13:05:00.000Z', 'Europe/Berlin')).toBe('21 Nov 2026, 14:05');
    expect(formatDateTime('2026-07-01T00:30:00.000Z', 'Europe/Berlin')).toBe('1 Jul 2026, 02:30');
    expect(formatDateTime('2026-07-01T00:30:00.000Z', 'America/New_York')).toBe('30 Jun 2026, 20:30');
    expect(formatDateTime('2026-07-01T00:05:00.000Z', 'UTC')).toBe('1 Jul 2026, 00:05');
  });

  it('gives "" for no time and falls back to UTC for a zone the runtime does not know', () => {
    expect(formatDateTime(null, 'UTC')).toBe('');
    expect(formatDateTime('2026-07-01T00:30:00.000Z', 'Mars/Olympus_Mons')).toBe('1 Jul 2026, 00:30');
  });
});
