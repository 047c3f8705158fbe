import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createMovie,
  createUser,
  setRating,
  setupTestApp,
  type TestContext,
} from '../../../../test/harness.js';
import { signedInClient, textOf, WebClient } from '../../../../test/web-client.js';

const PASSWORD = 'correct horse battery';

let ctx: TestContext;

beforeEach(async () => {
  // A server time zone other than UTC, so the new user's zone shows where it comes from.
  ctx = await setupTestApp({ env: { TIMEZONE: 'Europe/Paris' } });
  await createUser(ctx, { name: 'ada', isAdmin: true });
  await createUser(ctx, { name: 'bob' });
});
afterEach(() => ctx.close());

const signIn = (name: string, address = '127.0.0.1', password = PASSWORD) =>
  signedInClient(ctx.app, name, { address, password });

const userNames = async () =>
  (await ctx.db.selectFrom('users').select('name').orderBy('name').execute()).map((row) => row.name);

const NEW_USER = { name: 'dora', email: 'dora@example.test', password: 'dora has a password' };

describe('the users page', () => {
  it('lists every user for an administrator, with the create form', async () => {
    const admin = await signIn('ada');
    const page = await admin.get('/settings/users');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<h1>Users</h1>');
    expect(page.body).toContain('<a href="/settings/users" aria-current="page">Users</a>');
    expect(page.body).toContain('<caption>Users</caption>');
    const text = textOf(page.body);
    expect(text).toContain('Name E-mail Administrator Two-factor sign-in Created');
    expect(text).toMatch(/ada ada@example\.test yes off \d{1,2} \w{3} \d{4}, \d\d:\d\d/);
    expect(text).toMatch(/bob bob@example\.test no off \d{1,2} \w{3} \d{4}, \d\d:\d\d/);
    expect(page.body).not.toContain('password_hash');
    expect(page.body).not.toContain('$argon2');
    expect(page.body).toContain('<h2 id="create-heading">Create a user</h2>');
    for (const label of ['User name', 'E-mail', 'Password']) {
      expect(page.body).toMatch(new RegExp(`<label for="\\w+">${label}</label>`));
    }
    expect(text).toContain('Administrator');
    expect(page.body).toContain('name="isAdmin"');
    expect(text).toContain('Create user');
  });

  it('is closed to users who are not administrators', async () => {
    const browser = await signIn('bob');
    const page = await browser.get('/settings/users');
    expect(page.statusCode).toBe(403);
    expect(textOf(page.body)).toContain('Only an administrator can open this page.');
    expect(page.body).not.toContain('ada@example.test');
    // Nor is the Users link in bob's settings nav.
    expect((await browser.get('/settings/account')).body).not.toContain('href="/settings/users"');
  });

  it('sends a stranger to the sign-in page', async () => {
    const response = await new WebClient(ctx.app).get('/settings/users');
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/login?next=%2Fsettings%2Fusers');
  });
});

describe('creating a user', () => {
  it('creates a user with the server time zone, who can then sign in', async () => {
    const admin = await signIn('ada');
    const response = await admin.submit('/settings/users', '/settings/users', NEW_USER);
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/settings/users');
    const page = await admin.follow(response);
    expect(textOf(page.body)).toContain('The user dora is created and can sign in now.');
    expect(textOf(page.body)).toContain('dora dora@example.test no');

    const dora = await ctx.db
      .selectFrom('users')
      .select(['email', 'is_admin', 'timezone', 'privacy'])
      .where('name', '=', 'dora')
      .executeTakeFirstOrThrow();
    expect(dora).toEqual({
      email: 'dora@example.test',
      is_admin: 0,
      timezone: 'Europe/Paris',
      privacy: 'users',
    });

    const doraBrowser = await signIn('dora', '10.0.0.2', NEW_USER.password);
    expect(textOf((await doraBrowser.get('/')).body)).toContain('Signed in as dora');
    // dora is no administrator.
    expect((await doraBrowser.get('/settings/users')).statusCode).toBe(403);
  });

  it('creates an administrator when the box is ticked', async () => {
    const admin = await signIn('ada');
    const response = await admin.submit('/settings/users', '/settings/users', { ...NEW_USER, isAdmin: 'on' });
    expect(response.statusCode).toBe(303);
    expect(textOf((await admin.follow(response)).body)).toContain('The administrator dora is created');
    const dora = await ctx.users.verifyLogin('dora', NEW_USER.password);
    expect(dora?.isAdmin).toBe(true);
    const doraBrowser = await signIn('dora', '10.0.0.2', NEW_USER.password);
    expect((await doraBrowser.get('/settings/users')).statusCode).toBe(200);
  });

  it.each<[string, Partial<typeof NEW_USER>, string]>([
    ['a name taken (in any letter case)', { name: 'BOB' }, 'a user with this name already exists'],
    ['an e-mail taken', { email: 'bob@example.test' }, 'a user with this email already exists'],
    ['a name with a slash', { name: 'do/ra' }, 'name must be 1-64 letters'],
    ['an invalid e-mail', { email: 'dora' }, 'email must be an e-mail address'],
    ['a short password', { password: 'xq7z' }, 'password must be 8'],
  ])('refuses %s and creates nobody', async (_case, change, message) => {
    const admin = await signIn('ada');
    const response = await admin.submit('/settings/users', '/settings/users', {
      ...NEW_USER,
      ...change,
      isAdmin: 'on',
    });
    expect(response.statusCode).toBe(400);
    expect(textOf(response.body)).toContain(message);
    expect(response.body).toContain('role="alert"');
    // The form keeps what was entered, but the password.
    expect(response.body).toContain(`value="${change.email ?? NEW_USER.email}"`);
    expect(response.body).toMatch(/name="isAdmin" value="on" checked/);
    expect(response.body).not.toContain(change.password ?? NEW_USER.password);
    expect(await userNames()).toEqual(['ada', 'bob']);
  });

  it('refuses a user who is not an administrator, creating nobody', async () => {
    const browser = await signIn('bob');
    // bob's own account page gives him a valid form token: the check is the role, not the token.
    const response = await browser.submit('/settings/account', '/settings/users', {
      ...NEW_USER,
      isAdmin: 'on',
    });
    expect(response.statusCode).toBe(403);
    expect(await userNames()).toEqual(['ada', 'bob']);
  });

  it('refuses a form without a valid CSRF token', async () => {
    const admin = await signIn('ada');
    await admin.get('/settings/users');
    for (const token of ['', 'forged-token']) {
      const response = await admin.post('/settings/users', { ...NEW_USER, _csrf: token });
      expect(response.statusCode).toBe(403);
      expect(textOf(response.body)).toContain('This form has expired');
    }
    const bob = await signIn('bob', '10.0.0.2');
    await bob.get('/settings/account');
    const crossed = await admin.post('/settings/users', { ...NEW_USER, _csrf: bob.csrfToken() });
    expect(crossed.statusCode).toBe(403);
    expect(await userNames()).toEqual(['ada', 'bob']);
  });

  it('sends a stranger to the sign-in page, creating nobody', async () => {
    const stranger = new WebClient(ctx.app);
    const response = await stranger.submit('/login', '/settings/users', NEW_USER);
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/login');
    expect(await userNames()).toEqual(['ada', 'bob']);
  });
});

describe('the administrator role on the users page', () => {
  const isAdmin = async (name: string) => (await ctx.users.findByName(name))?.isAdmin;

  it('offers a role change and a deletion for every other user, none for oneself', async () => {
    const admin = await signIn('ada');
    const page = await admin.get('/settings/users');
    const text = textOf(page.body);
    expect(text).toMatch(/ada ada@example\.test yes off .* you/);
    expect(page.body).toContain('action="/settings/users/bob/admin"');
    expect(page.body).toContain('href="/settings/users/bob/delete"');
    expect(page.body).not.toContain('action="/settings/users/ada/admin"');
    expect(page.body).not.toContain('href="/settings/users/ada/delete"');
    expect(text).toContain('Make administrator');
  });

  it('makes a user an administrator, and takes it back', async () => {
    const admin = await signIn('ada');
    const promoted = await admin.submit('/settings/users', '/settings/users/bob/admin', { admin: 'on' });
    expect(promoted.statusCode).toBe(303);
    expect(textOf((await admin.follow(promoted)).body)).toContain('bob is an administrator.');
    expect(await isAdmin('bob')).toBe(true);
    const bob = await signIn('bob', '10.0.0.2');
    expect((await bob.get('/settings/users')).statusCode).toBe(200);

    const demoted = await admin.submit('/settings/users', '/settings/users/bob/admin', { admin: 'off' });
    expect(demoted.statusCode).toBe(303);
    expect(textOf((await admin.follow(demoted)).body)).toContain('bob is no longer an administrator.');
    expect(await isAdmin('bob')).toBe(false);
    expect((await bob.get('/settings/users')).statusCode).toBe(403);
  });

  it("refuses an administrator's change of their own role, a bad value and an unknown user", async () => {
    const admin = await signIn('ada');
    const own = await admin.submit('/settings/users', '/settings/users/ada/admin', { admin: 'off' });
    expect(own.statusCode).toBe(400);
    expect(textOf(own.body)).toContain('You cannot change the role of your own account here');
    const bad = await admin.submit('/settings/users', '/settings/users/bob/admin', { admin: 'yes' });
    expect(bad.statusCode).toBe(400);
    const unknown = await admin.submit('/settings/users', '/settings/users/nobody/admin', { admin: 'on' });
    expect(unknown.statusCode).toBe(404);
    expect(textOf(unknown.body)).toContain('There is no user named "nobody".');
    expect(await isAdmin('ada')).toBe(true);
    expect(await isAdmin('bob')).toBe(false);
  });

  it('refuses a user who is not an administrator, a stranger and a form without its CSRF token', async () => {
    const bob = await signIn('bob', '10.0.0.2');
    const own = await bob.submit('/settings/account', '/settings/users/bob/admin', { admin: 'on' });
    expect(own.statusCode).toBe(403);
    const stranger = await new WebClient(ctx.app).submit('/login', '/settings/users/bob/admin', {
      admin: 'on',
    });
    expect(stranger.statusCode).toBe(303);
    expect(stranger.headers.location).toBe('/login');
    const admin = await signIn('ada');
    await admin.get('/settings/users');
    for (const token of ['', 'forged-token', bob.csrfToken()]) {
      const response = await admin.post('/settings/users/bob/admin', { admin: 'on', _csrf: token });
      expect(response.statusCode).toBe(403);
    }
    expect(await isAdmin('bob')).toBe(false);
  });
});

describe('deleting a user on the users page', () => {
  const addData = async (name: string) => {
    const user = (await ctx.users.findByName(name))!;
    const movie = await createMovie(ctx);
    await ctx.library.write(user.id, (lib) =>
      lib.addPlays([{ movieId: movie.id, watchedAt: '2024-02-03', plays: 1, comment: null, position: 1 }]),
    );
    await setRating(ctx, user.id, movie.id, 7);
    return user;
  };
  const rowsOf = async (userId: number) =>
    (await ctx.db.selectFrom('watch_dates').select('id').where('user_id', '=', userId).execute()).length +
    (await ctx.db.selectFrom('ratings').select('movie_id').where('user_id', '=', userId).execute()).length +
    (await ctx.db.selectFrom('api_tokens').select('id').where('user_id', '=', userId).execute()).length;

  it('asks for the name, saying what goes, then deletes the user with their data', async () => {
    const bob = await addData('bob');
    const ada = await addData('ada');
    const admin = await signIn('ada');
    const page = await admin.get('/settings/users/bob/delete');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<h1>Delete the user bob?</h1>');
    expect(textOf(page.body)).toContain(
      '1 watch date, 0 movies on the watchlist, 1 rating, 1 API token, 0 webhooks',
    );
    expect(page.body).toContain('<label for="confirmName">');

    const wrong = await admin.submit('/settings/users/bob/delete', '/settings/users/bob/delete', {
      confirmName: 'BOB',
    });
    expect(wrong.statusCode).toBe(400);
    expect(textOf(wrong.body)).toContain('Type the user name bob to confirm.');
    expect(wrong.body).toContain('role="alert"');
    expect(await userNames()).toEqual(['ada', 'bob']);

    const response = await admin.submit('/settings/users/bob/delete', '/settings/users/bob/delete', {
      confirmName: 'bob',
    });
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/settings/users');
    expect(textOf((await admin.follow(response)).body)).toContain(
      'The user bob is deleted, with 1 watch date, 0 movies on the watchlist, 1 rating, 1 API token, 0 webhooks.',
    );
    expect(await userNames()).toEqual(['ada']);
    expect(await rowsOf(bob.id)).toBe(0);
    expect(await rowsOf(ada.id)).toBe(3);
    expect((await admin.get('/settings/users/bob/delete')).statusCode).toBe(404);
  });

  it("refuses the administrator's own account", async () => {
    const admin = await signIn('ada');
    const page = await admin.get('/settings/users/ada/delete');
    expect(page.statusCode).toBe(400);
    expect(textOf(page.body)).toContain('You cannot delete your own account here');
    const response = await admin.submit('/settings/users', '/settings/users/ada/delete', {
      confirmName: 'ada',
    });
    expect(response.statusCode).toBe(400);
    expect(await userNames()).toEqual(['ada', 'bob']);
  });

  it('refuses a user who is not an administrator, a stranger and a form without its CSRF token', async () => {
    const bob = await signIn('bob', '10.0.0.2');
    expect((await bob.get('/settings/users/ada/delete')).statusCode).toBe(403);
    const byBob = await bob.submit('/settings/account', '/settings/users/ada/delete', { confirmName: 'ada' });
    expect(byBob.statusCode).toBe(403);
    const strangerPage = await new WebClient(ctx.app).get('/settings/users/bob/delete');
    expect(strangerPage.statusCode).toBe(303);
    const stranger = await new WebClient(ctx.app).submit('/login', '/settings/users/bob/delete', {
      confirmName: 'bob',
    });
    expect(stranger.statusCode).toBe(303);
    expect(stranger.headers.location).toBe('/login');
    const admin = await signIn('ada');
    await admin.get('/settings/users/bob/delete');
    for (const token of ['', 'forged-token', bob.csrfToken()]) {
      const response = await admin.post('/settings/users/bob/delete', { confirmName: 'bob', _csrf: token });
      expect(response.statusCode).toBe(403);
      expect(textOf(response.body)).toContain('This form has expired');
    }
    expect(await userNames()).toEqual(['ada', 'bob']);
  });
});
