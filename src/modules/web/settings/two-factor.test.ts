import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEST_ENGINE } from '../../../../test/databases.js';
import {
  createUser,
  secondInstance,
  setupTestApp,
  type TestContext,
  type TestUser,
} from '../../../../test/harness.js';
import {
  codeFor,
  recoveryCodesOnPage,
  secretOnPage,
  TEST_SECRET_KEY,
  turnOnTwoFactor,
  wrongCodeFor,
} from '../../../../test/two-factor.js';
import { signedInClient, TEST_PASSWORD, textOf, WebClient } from '../../../../test/web-client.js';
import { hashToken } from '../../auth/token-format.js';

const BASE = '/settings/account/two-factor';
const STEP = 30_000;

let ctx: TestContext;
let bob: TestUser;
let carol: TestUser;

beforeEach(async () => {
  ctx = await setupTestApp({ env: { SECRET_KEY: TEST_SECRET_KEY } });
  bob = await createUser(ctx, { name: 'bob' });
  carol = await createUser(ctx, { name: 'carol' });
});
afterEach(() => ctx.close());

/** A code of the right form that the app does not show now. */
const wrongCode = (secret: string) => wrongCodeFor(secret, ctx.clock.now());

const signIn = (name: string, address = '127.0.0.1') => signedInClient(ctx.app, name, { address });

/** Everything stored about a user's two-factor sign-in: what a refused form must leave as it was. */
async function storedTwoFactor(userId: number) {
  const [row, codes, challenges] = await Promise.all([
    ctx.db.selectFrom('two_factor').selectAll().where('user_id', '=', userId).executeTakeFirst(),
    ctx.db
      .selectFrom('two_factor_recovery_codes')
      .select('code_hash')
      .where('user_id', '=', userId)
      .orderBy('code_hash')
      .execute(),
    ctx.db
      .selectFrom('two_factor_challenges')
      .select(['token_hash', 'failures'])
      .where('user_id', '=', userId)
      .orderBy('id')
      .execute(),
  ]);
  return { row: row ?? null, codes: codes.map((code) => code.code_hash), challenges };
}

const sessionsOf = async (userId: number) =>
  (await ctx.db.selectFrom('sessions').select('id').where('user_id', '=', userId).execute()).length;

/** Signs in with the password on a fresh client: the answer, and the client (waiting for its code). */
async function passwordStep(name: string, fields: Record<string, string> = {}, address = '10.0.0.9') {
  const client = new WebClient(ctx.app, address);
  const response = await client.submit('/login', '/login', {
    login: name,
    password: TEST_PASSWORD,
    ...fields,
  });
  return { client, response };
}

/** The code page's form, sent. */
async function sendCode(client: WebClient, code: string) {
  await client.get('/login/two-factor');
  return client.post('/login/two-factor', { code });
}

describe('the account page section', () => {
  it('offers to set it up while it is off', async () => {
    const browser = await signIn('bob');
    const page = await browser.get('/settings/account');
    expect(page.body).toContain('<h2 id="two-factor-heading">Two-factor sign-in</h2>');
    const text = textOf(page.body);
    expect(text).toContain('Off. With it on, signing in asks for your password and then a 6-digit code');
    expect(text).toContain('API tokens are not affected.');
    expect(page.body).toContain('action="/settings/account/two-factor/start"');
    expect(text).toContain('Set up two-factor sign-in');
  });
});

describe('setting it up', () => {
  it('shows a QR code drawn here and the key as text, keeping the key only sealed', async () => {
    const browser = await signIn('bob');
    const started = await browser.submit('/settings/account', `${BASE}/start`);
    expect(started.statusCode).toBe(303);
    expect(started.headers.location).toBe(BASE);
    const page = await browser.follow(started);
    expect(page.statusCode).toBe(200);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.body).toContain('<h1>Set up two-factor sign-in</h1>');
    expect(page.body).toMatch(
      /<img class="qr" src="data:image\/svg\+xml;base64,[A-Za-z0-9+/=]+"[^>]* alt="QR code/,
    );
    const secret = secretOnPage(page.body);
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    // The QR code's picture: an SVG of its own (qr-code.test.ts reads it back), nothing the CSP blocks.
    const svg = Buffer.from(
      /src="data:image\/svg\+xml;base64,([^"]+)"/.exec(page.body)![1]!,
      'base64',
    ).toString();
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" viewBox="0 0 (\d+) \1"/);
    expect(svg).not.toContain('style');
    expect(page.body).toContain('Account <strong>bob</strong>, issuer <strong>cinelog</strong>.');
    expect(page.body).toMatch(
      /<label for="code">Code from the app<\/label>\s*<input id="code" name="code" required autocomplete="one-time-code" inputmode="numeric"/,
    );
    // Not in plaintext anywhere in the database; sealed for bob alone.
    const { row } = await storedTwoFactor(bob.user.id);
    expect(row).toMatchObject({ secret: null, enabled_at: null, pending_at: ctx.clock.now().toISOString() });
    expect(row?.pending_secret).toMatch(/^v1\./);
    expect(JSON.stringify(row)).not.toContain(secret);
    // Reloading shows the same key; the account page says the setup is unfinished.
    expect(secretOnPage((await browser.get(BASE)).body)).toBe(secret);
    expect(textOf((await browser.get('/settings/account')).body)).toContain(
      'Off: the setup is not finished.',
    );
  });

  it('refuses a wrong code, keeping the setup and changing nothing', async () => {
    const browser = await signIn('bob');
    await browser.submit('/settings/account', `${BASE}/start`);
    const secret = secretOnPage((await browser.get(BASE)).body);
    const before = await storedTwoFactor(bob.user.id);
    for (const code of [
      wrongCode(secret),
      '',
      'abc',
      codeFor(secret, new Date(ctx.clock.now().getTime() + 5 * STEP)),
    ]) {
      const response = await browser.post(`${BASE}/confirm`, { code });
      expect(response.statusCode).toBe(400);
      expect(response.body).toContain(
        '<p class="error" role="alert" id="form-error">The code is not correct.</p>',
      );
      expect(response.body).toContain('aria-invalid="true"');
      expect(secretOnPage(response.body)).toBe(secret);
      expect(await storedTwoFactor(bob.user.id)).toEqual(before);
    }
  });

  it('turns it on with the right code and shows ten recovery codes once, stored only as hashes', async () => {
    const browser = await signIn('bob');
    await browser.submit('/settings/account', `${BASE}/start`);
    const secret = secretOnPage((await browser.get(BASE)).body);
    // A code of the step before is still accepted (the app's clock may lag).
    const response = await browser.post(`${BASE}/confirm`, {
      code: codeFor(secret, new Date(ctx.clock.now().getTime() - STEP)),
    });
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain('<h1>Two-factor sign-in is on</h1>');
    const codes = recoveryCodesOnPage(response.body);
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    expect(textOf(response.body)).toContain('they will not be shown again');

    const { row, codes: hashes } = await storedTwoFactor(bob.user.id);
    expect(row).toMatchObject({ pending_secret: null, enabled_at: ctx.clock.now().toISOString() });
    expect(row?.secret).toMatch(/^v1\./);
    expect(JSON.stringify(row)).not.toContain(secret);
    expect(hashes).toEqual(codes.map((code) => hashToken(code.replace(/-/g, ''))).sort());

    const account = await browser.get('/settings/account');
    expect(account.body).toContain(
      '<strong>On</strong> since <time datetime="2024-06-15T12:00:00.000Z">15 Jun 2024, 12:00</time>.',
    );
    expect(textOf(account.body)).toContain('10 of 10 recovery codes left.');
    expect(account.body).not.toContain(codes[0]!);
    // The setup page is gone; starting again changes nothing.
    expect((await browser.get(BASE)).headers.location).toBe('/settings/account');
    const before = await storedTwoFactor(bob.user.id);
    expect((await browser.submit('/settings/account', `${BASE}/start`)).headers.location).toBe(
      '/settings/account',
    );
    expect(await storedTwoFactor(bob.user.id)).toEqual(before);
  });

  it('cancels an unfinished setup', async () => {
    const browser = await signIn('bob');
    await browser.submit('/settings/account', `${BASE}/start`);
    const cancelled = await browser.submit(BASE, `${BASE}/cancel`);
    expect(cancelled.headers.location).toBe('/settings/account');
    expect(textOf((await browser.follow(cancelled)).body)).toContain('The setup is cancelled');
    expect((await storedTwoFactor(bob.user.id)).row).toBeNull();
    expect((await browser.get(BASE)).headers.location).toBe('/settings/account');
  });

  it('starting again replaces the unfinished key: a code of the old one no longer turns it on', async () => {
    const browser = await signIn('bob');
    await browser.submit('/settings/account', `${BASE}/start`);
    const first = secretOnPage((await browser.get(BASE)).body);
    await browser.submit('/settings/account', `${BASE}/start`);
    const second = secretOnPage((await browser.get(BASE)).body);
    expect(second).not.toBe(first);
    const refused = await browser.post(`${BASE}/confirm`, { code: codeFor(first, ctx.clock.now()) });
    expect(refused.statusCode).toBe(400);
    const accepted = await browser.post(`${BASE}/confirm`, { code: codeFor(second, ctx.clock.now()) });
    expect(accepted.statusCode).toBe(200);
  });
});

describe('signing in with two-factor sign-in on', () => {
  let secret: string;
  let recoveryCodes: string[];

  beforeEach(async () => {
    ({ secret, recoveryCodes } = await turnOnTwoFactor(await signIn('bob'), ctx.clock));
  });

  it('asks for the code after the password, with no session before it', async () => {
    const sessions = await sessionsOf(bob.user.id);
    const { client, response } = await passwordStep('bob');
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/login/two-factor');
    expect(client.cookies.has('cinelog_session')).toBe(false);
    expect(await sessionsOf(bob.user.id)).toBe(sessions);
    const cookie = String(response.headers['set-cookie']);
    expect(cookie).toMatch(
      /cinelog_two_factor=[A-Za-z0-9_-]{43}; Max-Age=300; Path=\/login\/two-factor; HttpOnly; SameSite=Lax/,
    );
    // Only the hash of the cookie's value is stored.
    const value = client.cookies.get('cinelog_two_factor')!;
    expect((await storedTwoFactor(bob.user.id)).challenges).toEqual([
      { token_hash: hashToken(value), failures: 0 },
    ]);

    const page = await client.get('/login/two-factor');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<h1>Two-factor sign-in</h1>');
    expect(page.body).toMatch(
      /<label for="code">Code<\/label>\s*<input id="code" name="code" required autocomplete="one-time-code" inputmode="numeric"/,
    );
    expect(page.body).toContain('href="/login/two-factor?with=recovery-code"');
    expect(textOf(page.body)).not.toContain('Signed in as');
    // Pages that need a session still send it to the sign-in page.
    expect((await client.get('/settings/account')).statusCode).toBe(303);

    const signedIn = await client.post('/login/two-factor', { code: codeFor(secret, ctx.clock.now()) });
    expect(signedIn.statusCode).toBe(303);
    expect(signedIn.headers.location).toBe('/');
    expect(client.cookies.has('cinelog_two_factor')).toBe(false);
    expect(String(signedIn.headers['set-cookie'])).not.toMatch(/cinelog_session=[^;]+;[^,]*Expires/);
    expect(textOf((await client.get('/')).body)).toContain('Signed in as bob');
    expect(await sessionsOf(bob.user.id)).toBe(sessions + 1);
    expect((await storedTwoFactor(bob.user.id)).challenges).toEqual([]);
  });

  it('carries "remember me" and the page to return to through the code', async () => {
    const { client, response } = await passwordStep('bob', { remember: 'on', next: '/settings/tokens' });
    expect(response.headers.location).toBe('/login/two-factor');
    const signedIn = await sendCode(client, codeFor(secret, ctx.clock.now()));
    expect(signedIn.headers.location).toBe('/settings/tokens');
    expect(String(signedIn.headers['set-cookie'])).toMatch(/cinelog_session=[^;]+; Path=\/; Expires=/);
  });

  it('keeps an odd page to return to from breaking the sign-in', async () => {
    for (const next of ['/a\u0000b', '//evil.example', 'https://evil.example/']) {
      const { client, response } = await passwordStep('bob', { next });
      expect(response.statusCode).toBeLessThan(500);
      // A form refused whole at the boundary (a NUL in any text) starts no sign-in: nothing to follow.
      if (response.statusCode === 400) {
        expect(client.cookies.has('cinelog_two_factor')).toBe(false);
        continue;
      }
      expect(response.statusCode).toBe(303);
      const signedIn = await sendCode(client, codeFor(secret, ctx.clock.now()));
      expect(signedIn.headers.location).toBe('/');
      ctx.clock.advance(STEP);
    }
  });

  it('a wrong password never reaches the code', async () => {
    const client = new WebClient(ctx.app);
    const response = await client.submit('/login', '/login', { login: 'bob', password: 'not the password' });
    expect(response.statusCode).toBe(401);
    expect(client.cookies.has('cinelog_two_factor')).toBe(false);
    expect((await storedTwoFactor(bob.user.id)).challenges).toEqual([]);
  });

  it('refuses a wrong code with the tries left, and sends the sign-in back after five', async () => {
    const { client } = await passwordStep('bob');
    const right = codeFor(secret, ctx.clock.now());
    const wrong = wrongCode(secret);
    for (let left = 4; left >= 1; left--) {
      const response = await sendCode(client, wrong);
      expect(response.statusCode).toBe(401);
      expect(response.body).toContain(
        `<p class="error" role="alert" id="form-error">The code is not correct. ${left} ${left === 1 ? 'try' : 'tries'} left.</p>`,
      );
      expect(client.cookies.has('cinelog_session')).toBe(false);
    }
    const fifth = await sendCode(client, wrong);
    expect(fifth.statusCode).toBe(303);
    expect(fifth.headers.location).toBe('/login');
    expect(textOf((await client.follow(fifth)).body)).toContain('Too many wrong codes: sign in again.');
    expect((await storedTwoFactor(bob.user.id)).challenges).toEqual([]);
    // The right code no longer helps that sign-in; a new one (password again) works.
    const late = await client.post('/login/two-factor', { code: right });
    expect(late.headers.location).toBe('/login');
    expect(client.cookies.has('cinelog_session')).toBe(false);
    const again = await passwordStep('bob');
    expect((await sendCode(again.client, right)).headers.location).toBe('/');
  });

  it('accepts a code once: the same code again is refused, the next step’s code works', async () => {
    const code = codeFor(secret, ctx.clock.now());
    const first = await passwordStep('bob');
    expect((await sendCode(first.client, code)).headers.location).toBe('/');
    const second = await passwordStep('bob', {}, '10.0.0.10');
    const replay = await sendCode(second.client, code);
    expect(replay.statusCode).toBe(401);
    expect(textOf(replay.body)).toContain('This code was used already: wait for the next one from your app.');
    expect(second.client.cookies.has('cinelog_session')).toBe(false);
    // An older code of the window is refused too, once a later one was accepted.
    const older = await sendCode(second.client, codeFor(secret, new Date(ctx.clock.now().getTime() - STEP)));
    expect(older.statusCode).toBe(401);
    ctx.clock.advance(STEP);
    expect((await sendCode(second.client, codeFor(secret, ctx.clock.now()))).headers.location).toBe('/');
  });

  it('accepts a recovery code once, however it is typed, and says how many are left', async () => {
    const [first, second] = recoveryCodes;
    const { client } = await passwordStep('bob');
    const form = await client.get('/login/two-factor?with=recovery-code');
    expect(form.body).toMatch(
      /<label for="code">Recovery code<\/label>\s*<input id="code" name="code" required autocomplete="off"/,
    );
    const signedIn = await client.post('/login/two-factor', {
      code: ` ${first!.toUpperCase().replace(/-/g, ' ')} `,
    });
    expect(signedIn.statusCode).toBe(303);
    expect(textOf((await client.follow(signedIn)).body)).toContain(
      'You signed in with a recovery code; it no longer works. 9 codes are left',
    );
    expect((await storedTwoFactor(bob.user.id)).codes).toHaveLength(9);

    const again = await passwordStep('bob');
    const reused = await sendCode(again.client, first!);
    expect(reused.statusCode).toBe(401);
    expect(reused.body).toContain('The code is not correct. 4 tries left.');
    // The page asks for a recovery code again, since one was typed.
    expect(reused.body).toContain('<label for="code">Recovery code</label>');
    expect((await sendCode(again.client, second!)).headers.location).toBe('/');
    expect((await storedTwoFactor(bob.user.id)).codes).toHaveLength(8);
  });

  it('lets the sign-in wait five minutes for its code, no longer', async () => {
    const { client } = await passwordStep('bob');
    ctx.clock.advance(5 * 60_000 - 1000);
    expect((await client.get('/login/two-factor')).statusCode).toBe(200);
    ctx.clock.advance(1000);
    const page = await client.get('/login/two-factor');
    expect(page.statusCode).toBe(303);
    expect(page.headers.location).toBe('/login');
    const cookie = client.cookies.get('cinelog_two_factor');
    expect(cookie).toBeUndefined();
    expect(textOf((await client.follow(page)).body)).toContain(
      'The sign-in waited more than 5 minutes for its code',
    );
    // Even with the cookie kept and the right code.
    const kept = await passwordStep('bob');
    const value = kept.client.cookies.get('cinelog_two_factor')!;
    ctx.clock.advance(5 * 60_000);
    await kept.client.get('/login');
    kept.client.cookies.set('cinelog_two_factor', value);
    const late = await kept.client.post('/login/two-factor', { code: codeFor(secret, ctx.clock.now()) });
    expect(late.headers.location).toBe('/login');
    expect(kept.client.cookies.has('cinelog_session')).toBe(false);
  });

  it('uses a sign-in up with its code: the same cookie cannot sign in twice', async () => {
    const { client } = await passwordStep('bob');
    const value = client.cookies.get('cinelog_two_factor')!;
    expect((await sendCode(client, codeFor(secret, ctx.clock.now()))).headers.location).toBe('/');
    const thief = new WebClient(ctx.app, '10.9.9.9');
    await thief.get('/login');
    thief.cookies.set('cinelog_two_factor', value);
    ctx.clock.advance(STEP);
    const again = await thief.post('/login/two-factor', { code: codeFor(secret, ctx.clock.now()) });
    expect(again.headers.location).toBe('/login');
    expect(thief.cookies.has('cinelog_session')).toBe(false);
  });

  it('without a sign-in waiting, the code page leads back to the password', async () => {
    const stranger = new WebClient(ctx.app);
    expect((await stranger.get('/login/two-factor')).headers.location).toBe('/login');
    await stranger.get('/login');
    stranger.cookies.set('cinelog_two_factor', 'A'.repeat(43));
    const response = await stranger.post('/login/two-factor', { code: codeFor(secret, ctx.clock.now()) });
    expect(response.headers.location).toBe('/login');
    expect(stranger.cookies.has('cinelog_session')).toBe(false);
  });

  it('limits codes per account across sign-ins, like passwords', async () => {
    const wrong = wrongCode(secret);
    let answered = 0;
    for (let signIn = 0; signIn < 3 && answered < 10; signIn++) {
      const { client } = await passwordStep('bob', {}, `10.1.0.${signIn}`);
      for (let i = 0; i < 4 && answered < 10; i++, answered++) {
        expect((await sendCode(client, wrong)).statusCode).toBe(401);
      }
    }
    const { client } = await passwordStep('bob', {}, '10.1.1.1');
    const limited = await sendCode(client, codeFor(secret, ctx.clock.now()));
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toMatch(/^\d+$/);
    expect(client.cookies.has('cinelog_session')).toBe(false);
  });

  it('refuses a code form without its CSRF token, counting nothing', async () => {
    const { client } = await passwordStep('bob');
    await client.get('/login/two-factor');
    const before = await storedTwoFactor(bob.user.id);
    const response = await client.post('/login/two-factor', {
      _csrf: '',
      code: codeFor(secret, ctx.clock.now()),
    });
    expect(response.statusCode).toBe(403);
    expect(textOf(response.body)).toContain('This form has expired or did not come from this site.');
    expect(client.cookies.has('cinelog_session')).toBe(false);
    expect(await storedTwoFactor(bob.user.id)).toEqual(before);
  });

  it('leaves API tokens alone: they never ask for a code', async () => {
    const response = await ctx.app.inject({
      method: 'GET',
      url: '/api/authentication/token',
      headers: bob.auth,
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ user: { name: 'bob' } });
  });

  it('stays on after a forgot-password reset: the next sign-in still asks for the code', async () => {
    const token = 'r'.repeat(43);
    await ctx.db
      .insertInto('password_resets')
      .values({
        user_id: bob.user.id,
        token_hash: hashToken(token),
        created_at: ctx.clock.now().toISOString(),
        expires_at: new Date(ctx.clock.now().getTime() + 3_600_000).toISOString(),
        used_at: null,
      })
      .execute();
    const client = new WebClient(ctx.app);
    await client.get(`/reset-password/${token}`);
    await client.get('/reset-password');
    const reset = await client.post('/reset-password', {
      password: 'a new long password',
      passwordConfirm: 'a new long password',
    });
    expect(reset.headers.location).toBe('/login');
    expect((await storedTwoFactor(bob.user.id)).row?.secret).toMatch(/^v1\./);
    const after = await client.submit('/login', '/login', { login: 'bob', password: 'a new long password' });
    expect(after.headers.location).toBe('/login/two-factor');
  });
});

describe('new recovery codes', () => {
  it('need a current code; the new set replaces the old one', async () => {
    const browser = await signIn('bob');
    const { secret, recoveryCodes } = await turnOnTwoFactor(browser, ctx.clock);
    const form = await browser.get(`${BASE}/recovery-codes`);
    expect(form.statusCode).toBe(200);
    expect(textOf(form.body)).toContain('You have 10 unused recovery codes.');
    expect(form.body).toMatch(
      /<label for="code">Code from your app<\/label>\s*<input id="code" name="code" required autocomplete="one-time-code" inputmode="numeric"/,
    );

    const before = await storedTwoFactor(bob.user.id);
    const refused = await browser.post(`${BASE}/recovery-codes`, { code: wrongCode(secret) });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('role="alert"');
    expect(await storedTwoFactor(bob.user.id)).toEqual(before);

    const made = await browser.post(`${BASE}/recovery-codes`, { code: codeFor(secret, ctx.clock.now()) });
    expect(made.statusCode).toBe(200);
    expect(made.body).toContain('<h1>New recovery codes</h1>');
    const fresh = recoveryCodesOnPage(made.body);
    expect(fresh).toHaveLength(10);
    expect(fresh.some((code) => recoveryCodes.includes(code))).toBe(false);
    expect(textOf(made.body)).toContain('Your older recovery codes no longer work.');

    ctx.clock.advance(STEP);
    const old = await passwordStep('bob');
    expect((await sendCode(old.client, recoveryCodes[0]!)).statusCode).toBe(401);
    expect((await sendCode(old.client, fresh[0]!)).headers.location).toBe('/');
  });
});

describe('turning it off', () => {
  let browser: WebClient;
  let secret: string;
  let recoveryCodes: string[];

  beforeEach(async () => {
    browser = await signIn('bob');
    ({ secret, recoveryCodes } = await turnOnTwoFactor(browser, ctx.clock));
  });

  it('shows a form asking for the password and a code', async () => {
    const page = await browser.get(`${BASE}/turn-off`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<h1>Turn off two-factor sign-in?</h1>');
    expect(page.body).toMatch(
      /<label for="password">Your password<\/label>\s*<input id="password" name="password" type="password" required autocomplete="current-password">/,
    );
    expect(page.body).toMatch(
      /<label for="code">Code from your app<\/label>\s*<input id="code" name="code" required autocomplete="one-time-code" inputmode="numeric"/,
    );
    expect(page.body).toContain('href="/settings/account">Cancel</a>');
  });

  it('refuses a wrong password or a wrong code, changing nothing', async () => {
    const before = await storedTwoFactor(bob.user.id);
    const code = codeFor(secret, ctx.clock.now());
    const cases = [
      { password: 'not my password', code, message: 'The password is not correct.' },
      { password: TEST_PASSWORD, code: wrongCode(secret), message: 'The code is not correct.' },
      { password: TEST_PASSWORD, code: 'zzzz-zzzz-zzzz-zzzz', message: 'The code is not correct.' },
    ];
    for (const { message, ...form } of cases) {
      const response = await browser.submit(`${BASE}/turn-off`, `${BASE}/turn-off`, form);
      expect(response.statusCode).toBe(400);
      expect(response.body).toContain(`<p class="error" role="alert" id="form-error">${message}</p>`);
      expect(await storedTwoFactor(bob.user.id)).toEqual(before);
    }
  });

  it('turns it off with the password and a code: the next sign-in asks for the password only', async () => {
    const response = await browser.submit(`${BASE}/turn-off`, `${BASE}/turn-off`, {
      password: TEST_PASSWORD,
      code: codeFor(secret, ctx.clock.now()),
    });
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/settings/account');
    expect(textOf((await browser.follow(response)).body)).toContain('Two-factor sign-in is off');
    expect(await storedTwoFactor(bob.user.id)).toEqual({ row: null, codes: [], challenges: [] });
    const { response: signIn } = await passwordStep('bob');
    expect(signIn.headers.location).toBe('/');
  });

  it('takes a recovery code instead of the app’s code', async () => {
    const response = await browser.submit(`${BASE}/turn-off`, `${BASE}/turn-off`, {
      password: TEST_PASSWORD,
      code: recoveryCodes[3]!,
    });
    expect(response.headers.location).toBe('/settings/account');
    expect((await storedTwoFactor(bob.user.id)).row).toBeNull();
  });
});

describe('the forms act on the signed-in account only', () => {
  it('leaves another user’s two-factor sign-in alone, whatever is sent', async () => {
    const { secret, recoveryCodes } = await turnOnTwoFactor(await signIn('carol', '10.0.0.3'), ctx.clock);
    const before = await storedTwoFactor(carol.user.id);
    const browser = await signIn('bob');
    // Bob has no setup of his own: the setup page does not show carol's.
    expect((await browser.get(BASE)).headers.location).toBe('/settings/account');
    const attempts: [string, Record<string, string>][] = [
      [`${BASE}/confirm`, { code: codeFor(secret, ctx.clock.now()) }],
      [`${BASE}/recovery-codes`, { code: recoveryCodes[0]! }],
      [`${BASE}/turn-off`, { password: TEST_PASSWORD, code: codeFor(secret, ctx.clock.now()) }],
      [`${BASE}/cancel`, {}],
    ];
    for (const [path, fields] of attempts) {
      const response = await browser.submit('/settings/account', path, fields);
      expect(response.statusCode).toBeLessThan(500);
      expect(await storedTwoFactor(carol.user.id)).toEqual(before);
    }
    expect((await storedTwoFactor(bob.user.id)).row).toBeNull();
  });

  it('sends a stranger to the sign-in page from every page and form, changing nothing', async () => {
    await turnOnTwoFactor(await signIn('bob'), ctx.clock);
    const before = await storedTwoFactor(bob.user.id);
    const stranger = new WebClient(ctx.app);
    for (const path of [BASE, `${BASE}/recovery-codes`, `${BASE}/turn-off`]) {
      const response = await stranger.get(path);
      expect(response.statusCode).toBe(303);
      expect(response.headers.location).toBe(`/login?next=${encodeURIComponent(path)}`);
    }
    await stranger.get('/login');
    for (const path of [
      `${BASE}/start`,
      `${BASE}/confirm`,
      `${BASE}/cancel`,
      `${BASE}/recovery-codes`,
      `${BASE}/turn-off`,
    ]) {
      const response = await stranger.post(path, { code: '123456', password: TEST_PASSWORD });
      expect(response.statusCode).toBe(303);
      expect(response.headers.location).toBe('/login');
    }
    expect(await storedTwoFactor(bob.user.id)).toEqual(before);
  });

  it('refuses every form without its CSRF token, changing nothing', async () => {
    const browser = await signIn('bob');
    await browser.get('/settings/account');
    const start = await browser.post(`${BASE}/start`, { _csrf: '' });
    expect(start.statusCode).toBe(403);
    expect((await storedTwoFactor(bob.user.id)).row).toBeNull();
    const { secret } = await turnOnTwoFactor(browser, ctx.clock);
    const before = await storedTwoFactor(bob.user.id);
    for (const path of [`${BASE}/recovery-codes`, `${BASE}/turn-off`, `${BASE}/cancel`]) {
      await browser.get(`${BASE}/turn-off`);
      const response = await browser.post(path, {
        _csrf: '',
        password: TEST_PASSWORD,
        code: codeFor(secret, ctx.clock.now()),
      });
      expect(response.statusCode).toBe(403);
      expect(await storedTwoFactor(bob.user.id)).toEqual(before);
    }
  });
});

describe('an administrator turning it off for a user', () => {
  let admin: WebClient;

  beforeEach(async () => {
    await createUser(ctx, { name: 'ada', isAdmin: true });
    await turnOnTwoFactor(await signIn('carol', '10.0.0.3'), ctx.clock);
    admin = await signIn('ada');
  });

  const TURN_OFF = '/settings/users/carol/two-factor/turn-off';

  it('sees who has it on, and turns it off after a confirmation', async () => {
    const list = await admin.get('/settings/users');
    const text = textOf(list.body);
    expect(text).toContain('Name E-mail Administrator Two-factor sign-in Created');
    expect(text).toMatch(/carol carol@example\.test no on · Turn off \d/);
    expect(text).toMatch(/bob bob@example\.test no off \d/);
    expect(list.body).toContain(
      `<a href="${TURN_OFF}" aria-label="Turn off two-factor sign-in for carol">Turn off</a>`,
    );

    const confirm = await admin.get(TURN_OFF);
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain('<h1>Turn off two-factor sign-in for carol?</h1>');
    expect(textOf(confirm.body)).toContain('Yes, turn it off');
    expect(confirm.body).toContain('<a href="/settings/users">Cancel</a>');
    expect((await storedTwoFactor(carol.user.id)).row?.secret).toMatch(/^v1\./);

    const done = await admin.post(TURN_OFF);
    expect(done.headers.location).toBe('/settings/users');
    expect(textOf((await admin.follow(done)).body)).toContain('Two-factor sign-in of carol is off');
    expect(await storedTwoFactor(carol.user.id)).toEqual({ row: null, codes: [], challenges: [] });
    expect((await passwordStep('carol')).response.headers.location).toBe('/');

    // Again: nothing to do, and the page says so.
    expect(textOf((await admin.get(TURN_OFF)).body)).toContain('carol does not have two-factor sign-in on');
    const again = await admin.post(TURN_OFF);
    expect(textOf((await admin.follow(again)).body)).toContain(
      'carol did not have two-factor sign-in on: nothing changed.',
    );
  });

  it('is for administrators only: anyone else gets 403 and nothing changes', async () => {
    const before = await storedTwoFactor(carol.user.id);
    const browser = await signIn('bob', '10.0.0.5');
    expect((await browser.get(TURN_OFF)).statusCode).toBe(403);
    await browser.get('/settings/account');
    const response = await browser.post(TURN_OFF);
    expect(response.statusCode).toBe(403);
    expect(await storedTwoFactor(carol.user.id)).toEqual(before);
    const stranger = new WebClient(ctx.app);
    expect((await stranger.get(TURN_OFF)).headers.location).toBe(
      `/login?next=${encodeURIComponent(TURN_OFF)}`,
    );
    await stranger.get('/login');
    expect((await stranger.post(TURN_OFF)).headers.location).toBe('/login');
    expect(await storedTwoFactor(carol.user.id)).toEqual(before);
  });

  it('refuses the form without its CSRF token, and unknown or malformed names', async () => {
    const before = await storedTwoFactor(carol.user.id);
    await admin.get(TURN_OFF);
    expect((await admin.post(TURN_OFF, { _csrf: '' })).statusCode).toBe(403);
    expect(await storedTwoFactor(carol.user.id)).toEqual(before);
    expect((await admin.get('/settings/users/nobody/two-factor/turn-off')).statusCode).toBe(404);
    expect((await admin.get('/settings/users/-bad/two-factor/turn-off')).statusCode).toBe(400);
    await admin.get(TURN_OFF);
    expect((await admin.post('/settings/users/nobody/two-factor/turn-off')).statusCode).toBe(404);
  });
});

describe('the server key', () => {
  it.runIf(TEST_ENGINE === 'sqlite')(
    'on SQLite without SECRET_KEY, is made beside the database on first setup (mode 0600) and survives a restart',
    async () => {
      const plain = await setupTestApp();
      try {
        const file = join(dirname(plain.config.databaseUrl.slice('sqlite:'.length)), 'secret.key');
        await createUser(plain, { name: 'dora' });
        const browser = await signedInClient(plain.app, 'dora');
        expect(textOf((await browser.get('/settings/account')).body)).toContain('Set up two-factor sign-in');
        expect(existsSync(file)).toBe(false);
        const { secret } = await turnOnTwoFactor(browser, plain.clock);
        expect(statSync(file).mode & 0o777).toBe(0o600);
        // A new app on the same database (a restart) reads the same key: the code is checked.
        const restarted = await secondInstance(plain);
        try {
          const client = new WebClient(restarted.app);
          await client.submit('/login', '/login', { login: 'dora', password: TEST_PASSWORD });
          await client.get('/login/two-factor');
          const done = await client.post('/login/two-factor', { code: codeFor(secret, plain.clock.now()) });
          expect(done.headers.location).toBe('/');
        } finally {
          await restarted.close();
        }
      } finally {
        await plain.close();
      }
    },
  );

  it.runIf(TEST_ENGINE === 'postgres')(
    'on PostgreSQL without SECRET_KEY, cannot be turned on, and the account page names SECRET_KEY',
    async () => {
      const plain = await setupTestApp();
      try {
        await createUser(plain, { name: 'dora' });
        const browser = await signedInClient(plain.app, 'dora');
        const page = await browser.get('/settings/account');
        expect(textOf(page.body)).toContain('It cannot be turned on on this server');
        expect(textOf(page.body)).toContain('SECRET_KEY');
        expect(page.body).not.toContain('action="/settings/account/two-factor/start"');
        const refused = await browser.post(`${BASE}/start`);
        expect(refused.headers.location).toBe('/settings/account');
        expect(await plain.db.selectFrom('two_factor').selectAll().execute()).toEqual([]);
      } finally {
        await plain.close();
      }
    },
  );

  it('a changed key refuses the app’s codes with a clear reason; recovery codes still sign in', async () => {
    const { recoveryCodes, secret } = await turnOnTwoFactor(await signIn('bob'), ctx.clock);
    const other = await secondInstance({
      config: { ...ctx.config, secretKey: 'another server key, long enough too' },
      clock: ctx.clock,
    });
    try {
      const client = new WebClient(other.app);
      await client.submit('/login', '/login', { login: 'bob', password: TEST_PASSWORD });
      const refused = await sendCode(client, codeFor(secret, ctx.clock.now()));
      expect(refused.statusCode).toBe(400);
      expect(textOf(refused.body)).toContain('Codes from your app cannot be checked right now');
      expect((await sendCode(client, recoveryCodes[0]!)).headers.location).toBe('/');
    } finally {
      await other.close();
    }
  });
});
