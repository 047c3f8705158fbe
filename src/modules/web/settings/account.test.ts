import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeSmtp, startFakeSmtp } from '../../../../test/fake-smtp.js';
import { createUser, setupTestApp, type TestContext, type TestUser } from '../../../../test/harness.js';
import { signedInClient, textOf, WebClient } from '../../../../test/web-client.js';

const PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'a brand new passphrase';

let ctx: TestContext;
let bob: TestUser;
let carol: TestUser;

beforeEach(async () => {
  ctx = await setupTestApp();
  bob = await createUser(ctx, { name: 'bob' });
  carol = await createUser(ctx, { name: 'carol' });
});
afterEach(() => ctx.close());

/** A browser signed in as `name` (each from its own address, as different devices). */
const signIn = (name: string, address = '127.0.0.1', password = PASSWORD) =>
  signedInClient(ctx.app, name, { address, password });

const stored = (id: number) =>
  ctx.db
    .selectFrom('users')
    .select(['password_hash', 'email', 'timezone', 'privacy'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();

const sessionsOf = async (id: number) =>
  (await ctx.db.selectFrom('sessions').select('id').where('user_id', '=', id).execute()).length;

const historyStatus = async (owner: string, auth: { authorization: string }) =>
  (await ctx.app.inject({ method: 'GET', url: `/api/users/${owner}/history/movies`, headers: auth }))
    .statusCode;

const PASSWORD_FORM = { current: PASSWORD, password: NEW_PASSWORD, passwordConfirm: NEW_PASSWORD };
const PROFILE_FORM = { timezone: 'Asia/Tokyo', privacy: 'private' };
const EMAIL_FORM = { email: 'bob@new.example.test', current: PASSWORD };

describe('the account page', () => {
  it('shows the current e-mail, time zone and privacy, under the settings nav', async () => {
    await ctx.users.update('bob', { timezone: 'Europe/Berlin', privacy: 'private' });
    const browser = await signIn('bob');
    const page = await browser.get('/settings/account');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<h1>Account</h1>');
    expect(page.body).toContain('aria-label="Settings"');
    expect(page.body).toContain('<a href="/settings/account" aria-current="page">Account</a>');
    expect(page.body).not.toContain('href="/settings/users"');
    expect(page.body).toContain('value="bob@example.test"');
    expect(page.body).toContain('<option value="Europe/Berlin" selected>');
    expect(page.body).toContain('<option value="private" selected>Only me</option>');
    expect(page.body).toContain('<option value="users">Everyone with an account here</option>');
    expect(page.body).toContain('<label for="email-current-password">Current password</label>');
    for (const label of [
      'Current password',
      'New password',
      'Repeat the new password',
      'E-mail',
      'Time zone',
    ]) {
      expect(page.body).toMatch(new RegExp(`<label for="[\\w-]+">${label}</label>`));
    }
    expect(page.body).toContain('<label for="privacy">Who can see your lists</label>');
    expect(textOf(page.body)).toContain('Change password');
    expect(textOf(page.body)).toContain('Save profile');
    expect(textOf(page.body)).toContain('Change e-mail');
    expect(page.body).not.toContain('carol@example.test');
  });

  it('keeps a time zone the runtime accepts but does not list selected', async () => {
    await ctx.db.updateTable('users').set({ timezone: 'US/Eastern' }).where('id', '=', bob.user.id).execute();
    const browser = await signIn('bob');
    const page = await browser.get('/settings/account');
    expect(page.body).toContain('<option value="US/Eastern" selected>');
  });

  it('sends a stranger to the sign-in page', async () => {
    const response = await new WebClient(ctx.app).get('/settings/account');
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/login?next=%2Fsettings%2Faccount');
  });
});

describe('changing the password', () => {
  it('refuses a wrong current password and changes nothing', async () => {
    const browser = await signIn('bob');
    const elsewhere = await signIn('bob', '10.0.0.2');
    const before = await stored(bob.user.id);
    const response = await browser.submit('/settings/account', '/settings/account/password', {
      ...PASSWORD_FORM,
      current: 'not my password',
    });
    expect(response.statusCode).toBe(400);
    expect(textOf(response.body)).toContain('the current password is not correct');
    expect(response.body).not.toContain(NEW_PASSWORD);
    expect(response.body).toContain('value="bob@example.test"');
    expect((await stored(bob.user.id)).password_hash).toBe(before.password_hash);
    expect(await sessionsOf(bob.user.id)).toBe(2);
    expect((await elsewhere.get('/settings/account')).statusCode).toBe(200);
  });

  it('refuses new passwords that differ or are too short, changing nothing', async () => {
    const browser = await signIn('bob');
    const before = await stored(bob.user.id);
    await browser.get('/settings/account');
    const differ = await browser.post('/settings/account/password', {
      ...PASSWORD_FORM,
      passwordConfirm: 'something else entirely',
    });
    expect(differ.statusCode).toBe(400);
    expect(textOf(differ.body)).toContain('the two new passwords differ');
    const short = await browser.post('/settings/account/password', {
      current: PASSWORD,
      password: 'short',
      passwordConfirm: 'short',
    });
    expect(short.statusCode).toBe(400);
    expect(textOf(short.body)).toContain('password must be 8');
    expect((await stored(bob.user.id)).password_hash).toBe(before.password_hash);
  });

  it('sets the new password, keeps tokens and this sign-in, and signs out the other browsers', async () => {
    const browser = await signIn('bob');
    const otherBrowser = await signIn('bob', '10.0.0.2');
    const carolBrowser = await signIn('carol', '10.0.0.3');
    expect(await historyStatus('bob', bob.auth)).toBe(200);

    const response = await browser.submit('/settings/account', '/settings/account/password', PASSWORD_FORM);
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/settings/account');
    const page = await browser.follow(response);
    expect(page.statusCode).toBe(200);
    expect(textOf(page.body)).toContain(
      'Your password is changed. You are signed out in your other browsers.',
    );

    // This browser stays signed in; the other one of bob is out; carol's sign-in is not bob's business.
    expect(await sessionsOf(bob.user.id)).toBe(1);
    expect((await otherBrowser.get('/settings/account')).headers.location).toBe(
      '/login?next=%2Fsettings%2Faccount',
    );
    expect((await carolBrowser.get('/settings/account')).statusCode).toBe(200);
    // API tokens made before still work.
    expect(await historyStatus('bob', bob.auth)).toBe(200);

    const withOld = await new WebClient(ctx.app, '10.0.0.4').submit('/login', '/login', {
      login: 'bob',
      password: PASSWORD,
    });
    expect(withOld.statusCode).toBe(401);
    await signIn('bob', '10.0.0.5', NEW_PASSWORD);
    expect((await stored(carol.user.id)).password_hash).not.toBe((await stored(bob.user.id)).password_hash);
    expect(await ctx.users.verifyLogin('carol', PASSWORD)).not.toBeNull();
  });

  it('kills open forgot-password links of the account, and only its own', async () => {
    const openLinks = async (userId: number) =>
      (
        await ctx.db
          .selectFrom('password_resets')
          .select('id')
          .where('user_id', '=', userId)
          .where('used_at', 'is', null)
          .execute()
      ).length;
    for (const user of [bob, carol]) {
      await ctx.db
        .insertInto('password_resets')
        .values({
          user_id: user.user.id,
          token_hash: String(user.user.id).repeat(64).slice(0, 64),
          created_at: ctx.clock.now().toISOString(),
          expires_at: new Date(ctx.clock.now().getTime() + 3_600_000).toISOString(),
          used_at: null,
        })
        .execute();
    }
    const browser = await signIn('bob');
    await browser.submit('/settings/account', '/settings/account/password', PASSWORD_FORM);
    expect(await openLinks(bob.user.id)).toBe(0);
    expect(await openLinks(carol.user.id)).toBe(1);

    const carolBrowser = await signIn('carol', '10.0.0.3');
    await carolBrowser.submit('/settings/account', '/settings/account/email', {
      email: 'carol@elsewhere.example.test',
      current: PASSWORD,
    });
    // A link mailed to the old address dies with the change.
    expect(await openLinks(carol.user.id)).toBe(0);
  });

  it('limits guesses of the current password', async () => {
    const browser = await signIn('bob');
    await browser.get('/settings/account');
    for (let i = 0; i < 10; i++) {
      const guess = await browser.post('/settings/account/password', {
        ...PASSWORD_FORM,
        current: `guess ${i}`,
      });
      expect(guess.statusCode).toBe(400);
    }
    const before = await stored(bob.user.id);
    const limited = await browser.post('/settings/account/password', PASSWORD_FORM);
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBeDefined();
    expect((await stored(bob.user.id)).password_hash).toBe(before.password_hash);
  });

  it('refuses a form without a valid CSRF token', async () => {
    const browser = await signIn('bob');
    const elsewhere = await signIn('bob', '10.0.0.2');
    const before = await stored(bob.user.id);
    await browser.get('/settings/account');
    for (const token of ['', 'forged-token']) {
      const response = await browser.post('/settings/account/password', { ...PASSWORD_FORM, _csrf: token });
      expect(response.statusCode).toBe(403);
      expect(textOf(response.body)).toContain('This form has expired');
    }
    // carol's page token does not fit bob's browser.
    const carolBrowser = await signIn('carol', '10.0.0.3');
    await carolBrowser.get('/settings/account');
    const crossed = await browser.post('/settings/account/password', {
      ...PASSWORD_FORM,
      _csrf: carolBrowser.csrfToken(),
    });
    expect(crossed.statusCode).toBe(403);
    expect((await stored(bob.user.id)).password_hash).toBe(before.password_hash);
    expect(await sessionsOf(bob.user.id)).toBe(2);
    expect((await elsewhere.get('/settings/account')).statusCode).toBe(200);
  });

  it('sends a stranger to the sign-in page and changes nothing', async () => {
    const before = await stored(bob.user.id);
    const stranger = new WebClient(ctx.app);
    const response = await stranger.submit('/login', '/settings/account/password', PASSWORD_FORM);
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/login');
    expect((await stored(bob.user.id)).password_hash).toBe(before.password_hash);
  });
});

describe('changing the e-mail address', () => {
  it('needs the current password: a signed-in browser alone cannot change it', async () => {
    const browser = await signIn('bob');
    const before = await stored(bob.user.id);
    for (const current of ['', 'not the password']) {
      const response = await browser.submit('/settings/account', '/settings/account/email', {
        ...EMAIL_FORM,
        current,
      });
      expect(response.statusCode).toBe(400);
      expect(response.body).toContain('role="alert"');
      expect(response.body).toContain('value="bob@new.example.test"');
      if (current !== '') expect(textOf(response.body)).toContain('the current password is not correct');
    }
    // The profile form no longer takes an address, whatever it is sent.
    const sideways = await browser.submit('/settings/account', '/settings/account/profile', {
      ...PROFILE_FORM,
      email: 'mallory@example.test',
    });
    expect(sideways.statusCode).toBe(303);
    expect((await stored(bob.user.id)).email).toBe(before.email);
  });

  it('changes it with the current password; the new address signs in, open reset links die', async () => {
    const browser = await signIn('bob');
    const response = await browser.submit('/settings/account', '/settings/account/email', {
      ...EMAIL_FORM,
      email: '  Bob@New.Example.TEST ',
    });
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/settings/account');
    expect((await stored(bob.user.id)).email).toBe('bob@new.example.test');
    expect((await stored(carol.user.id)).email).toBe('carol@example.test');
    const page = await browser.follow(response);
    expect(textOf(page.body)).toContain('Your e-mail address is now bob@new.example.test.');
    // No SMTP_URL here: no notice is promised.
    expect(textOf(page.body)).not.toContain('A notice went to');
    expect(page.body).toContain('value="bob@new.example.test"');
    await signIn('bob@new.example.test', '10.0.0.2');
  });

  it.each([
    ['an invalid e-mail', { email: 'not-an-address' }, 'email must be an e-mail address'],
    ['a too long e-mail', { email: `${'a'.repeat(250)}@example.test` }, 'email must be an e-mail address'],
    ["another user's e-mail", { email: 'Carol@example.test' }, 'a user with this email already exists'],
    ['the same e-mail', { email: 'BOB@example.test' }, 'this is already your e-mail address'],
  ])('refuses %s and changes nothing', async (_case, change, message) => {
    const browser = await signIn('bob');
    const before = await stored(bob.user.id);
    const response = await browser.submit('/settings/account', '/settings/account/email', {
      ...EMAIL_FORM,
      ...change,
    });
    expect(response.statusCode).toBe(400);
    expect(textOf(response.body)).toContain(message);
    expect(await stored(bob.user.id)).toEqual(before);
    expect((await stored(carol.user.id)).email).toBe('carol@example.test');
  });

  it('limits guesses of the current password together with the password form', async () => {
    const browser = await signIn('bob');
    await browser.get('/settings/account');
    for (let i = 0; i < 10; i++) {
      const form = i % 2 === 0 ? '/settings/account/email' : '/settings/account/password';
      const guess = await browser.post(form, { ...EMAIL_FORM, ...PASSWORD_FORM, current: `guess ${i}` });
      expect(guess.statusCode).toBe(400);
    }
    const limited = await browser.post('/settings/account/email', EMAIL_FORM);
    expect(limited.statusCode).toBe(429);
    expect((await stored(bob.user.id)).email).toBe('bob@example.test');
  });

  it('refuses a form without a valid CSRF token, and sends a stranger to the sign-in page', async () => {
    const browser = await signIn('bob');
    await browser.get('/settings/account');
    for (const token of ['', 'forged-token']) {
      const response = await browser.post('/settings/account/email', { ...EMAIL_FORM, _csrf: token });
      expect(response.statusCode).toBe(403);
    }
    const stranger = new WebClient(ctx.app);
    const response = await stranger.submit('/login', '/settings/account/email', EMAIL_FORM);
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/login');
    expect((await stored(bob.user.id)).email).toBe('bob@example.test');
  });

  it("changes the signed-in user's address only, whatever the form names", async () => {
    const browser = await signIn('carol', '10.0.0.3');
    const response = await browser.submit('/settings/account', '/settings/account/email', {
      email: 'carol@new.example.test',
      current: PASSWORD,
      name: 'bob',
      userId: String(bob.user.id),
    });
    expect(response.statusCode).toBe(303);
    expect((await stored(carol.user.id)).email).toBe('carol@new.example.test');
    expect((await stored(bob.user.id)).email).toBe('bob@example.test');
  });
});

describe('the notice of an e-mail change', () => {
  let smtp: FakeSmtp;
  beforeAll(async () => {
    smtp = await startFakeSmtp();
  });
  afterAll(() => smtp.close());

  it('goes to the old address when SMTP_URL is set, naming both addresses', async () => {
    const mailing = await setupTestApp({ env: { SMTP_URL: smtp.url, MAIL_FROM: 'cinelog@cinelog.test' } });
    try {
      await createUser(mailing, { name: 'dora' });
      const browser = await signedInClient(mailing.app, 'dora');
      const response = await browser.submit('/settings/account', '/settings/account/email', {
        email: 'dora@new.example.test',
        current: PASSWORD,
      });
      expect(response.statusCode).toBe(303);
      const page = await browser.follow(response);
      expect(textOf(page.body)).toContain('A notice went to dora@example.test.');
      const notice = await smtp.waitForMail('dora@example.test');
      expect(notice.subject).toBe('The e-mail address of your cinelog account was changed');
      expect(notice.text).toContain('from dora@example.test to dora@new.example.test');
      expect(notice.text).toContain('"dora"');
      expect(smtp.mails.filter((mail) => mail.to.includes('dora@new.example.test'))).toEqual([]);
    } finally {
      await mailing.close();
    }
  });
});

describe('saving the profile', () => {
  it('saves time zone and privacy; the API then hides the lists from others', async () => {
    expect(await historyStatus('bob', carol.auth)).toBe(200);
    const browser = await signIn('bob');
    const response = await browser.submit('/settings/account', '/settings/account/profile', PROFILE_FORM);
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/settings/account');
    expect(await stored(bob.user.id)).toMatchObject({
      email: 'bob@example.test',
      timezone: 'Asia/Tokyo',
      privacy: 'private',
    });
    // Only bob's row changed.
    expect(await stored(carol.user.id)).toMatchObject({
      email: 'carol@example.test',
      timezone: 'UTC',
      privacy: 'users',
    });
    expect(await historyStatus('bob', carol.auth)).toBe(403);
    expect(await historyStatus('bob', bob.auth)).toBe(200);

    const page = await browser.follow(response);
    expect(textOf(page.body)).toContain('Your profile is saved.');
    expect(page.body).toContain('<option value="Asia/Tokyo" selected>');
    expect(page.body).toContain('<option value="private" selected>Only me</option>');

    const open = await browser.submit('/settings/account', '/settings/account/profile', {
      ...PROFILE_FORM,
      privacy: 'users',
    });
    expect(open.statusCode).toBe(303);
    expect(await historyStatus('bob', carol.auth)).toBe(200);
  });

  it('saves how ratings are shown and the public profile; unticked, the public profile is off', async () => {
    const browser = await signIn('bob');
    const page = await browser.get('/settings/account');
    expect(page.body).toContain('<label for="rating-scale">Show ratings as</label>');
    expect(page.body).toContain('<option value="stars" selected>');
    const saved = await browser.post('/settings/account/profile', {
      ...PROFILE_FORM,
      ratingScale: 'points',
      publicProfile: 'on',
    });
    expect(saved.statusCode).toBe(303);
    expect(await ctx.users.findByName('bob')).toMatchObject({ ratingScale: 'points', publicProfile: true });
    const shown = await browser.follow(saved);
    expect(shown.body).toContain('<option value="points" selected>');
    expect(shown.body).toMatch(/name="publicProfile" value="on"[^>]* checked/);
    await browser.post('/settings/account/profile', PROFILE_FORM);
    expect(await ctx.users.findByName('bob')).toMatchObject({ ratingScale: 'points', publicProfile: false });
    expect((await ctx.users.findByName('carol'))?.ratingScale).toBe('stars');
  });

  it.each([
    ['an unknown rating scale', { ratingScale: 'halves' }, 'the rating scale must be'],
    ['an unknown time zone', { timezone: 'Mars/Olympus_Mons' }, 'unknown time zone'],
    ['an unknown privacy', { privacy: 'everyone' }, 'privacy must be'],
  ])('refuses %s and changes nothing', async (_case, change, message) => {
    const browser = await signIn('bob');
    const before = await stored(bob.user.id);
    const response = await browser.submit('/settings/account', '/settings/account/profile', {
      ...PROFILE_FORM,
      ...change,
    });
    expect(response.statusCode).toBe(400);
    expect(textOf(response.body)).toContain(message);
    expect(response.body).toContain('role="alert"');
    expect(await stored(bob.user.id)).toEqual(before);
  });

  it('keeps what was entered when the form is refused', async () => {
    const browser = await signIn('bob');
    const response = await browser.submit('/settings/account', '/settings/account/profile', {
      timezone: 'Asia/Tokyo',
      privacy: 'everyone',
    });
    expect(response.statusCode).toBe(400);
    expect(response.body).toContain('<option value="Asia/Tokyo" selected>');
    expect(response.body).toContain('value="bob@example.test"');
  });

  it('refuses a form without a valid CSRF token', async () => {
    const browser = await signIn('bob');
    const before = await stored(bob.user.id);
    await browser.get('/settings/account');
    for (const token of ['', 'forged-token']) {
      const response = await browser.post('/settings/account/profile', { ...PROFILE_FORM, _csrf: token });
      expect(response.statusCode).toBe(403);
    }
    expect(await stored(bob.user.id)).toEqual(before);
  });

  it('sends a stranger to the sign-in page and changes nothing', async () => {
    const before = [await stored(bob.user.id), await stored(carol.user.id)];
    const stranger = new WebClient(ctx.app);
    const response = await stranger.submit('/login', '/settings/account/profile', PROFILE_FORM);
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/login');
    expect([await stored(bob.user.id), await stored(carol.user.id)]).toEqual(before);
  });
});
