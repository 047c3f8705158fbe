import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMovie, createUser, setupTestApp, type TestContext, type TestUser } from './harness.js';
import { signedInClient, textOf, WebClient } from './web-client.js';

// Text holding the NUL character is a 400 everywhere, on both engines: PostgreSQL cannot store it, and
// SQLite would keep it. One rule at the boundary (the request validator), not one per field.
let ctx: TestContext;
let bob: TestUser;

beforeEach(async () => {
  ctx = await setupTestApp();
  bob = await createUser(ctx, { name: 'bob' });
});
afterEach(() => ctx.close());

describe('NUL characters', () => {
  it('are refused in every form with a 400 page that says so, changing nothing', async () => {
    const anonymous = new WebClient(ctx.app);
    const login = await anonymous.submit('/login', '/login', { login: '\u0000', password: 'x' });
    expect(login.statusCode).toBe(400);
    expect(textOf(login.body)).toContain('NUL');
    // Without SMTP_URL the forgot-password page has no form: the sign-in page's CSRF token serves.
    await anonymous.get('/login');
    const forgot = await anonymous.post('/forgot-password', { email: 'a\u0000@b.c' });
    expect(forgot.statusCode).toBe(400);
    expect(textOf(forgot.body)).toContain('NUL');

    const browser = await signedInClient(ctx.app, 'bob');
    const token = await browser.submit('/settings/tokens', '/settings/tokens', {
      name: 'a\u0000b',
      expiry: '30',
    });
    expect(token.statusCode).toBe(400);
    expect(textOf(token.body)).toContain('NUL');
    const profile = await browser.submit('/settings/account', '/settings/account/email', {
      email: 'bob\u0000x@example.com',
      current: 'correct horse battery',
    });
    expect(profile.statusCode).toBe(400);
    expect(textOf(profile.body)).toContain('NUL');
    const timezone = await browser.submit('/settings/account', '/settings/account/profile', {
      timezone: 'UTC\u0000',
      privacy: 'users',
    });
    expect(timezone.statusCode).toBe(400);

    expect(await ctx.db.selectFrom('api_tokens').select('name').execute()).toEqual([{ name: 'test token' }]);
    expect(await ctx.users.findByName('bob')).toMatchObject({ email: 'bob@example.test', timezone: 'UTC' });
  });

  it('are refused in API bodies, queries and paths with the envelope', async () => {
    const movie = await createMovie(ctx);
    const json = { ...bob.auth, 'content-type': 'application/json' };
    const requests = [
      {
        method: 'POST' as const,
        url: '/api/users/bob/history/movies',
        payload: JSON.stringify([{ serviceId: movie.id, watchedAt: '2024-01-01', comment: 'a\u0000' }]),
      },
      {
        method: 'POST' as const,
        url: '/api/users/bob/played/movies',
        payload: JSON.stringify([
          { serviceId: movie.id, watchDates: [{ watchedAt: null, comment: '\u0000' }] },
        ]),
      },
      { method: 'GET' as const, url: '/api/users/bob/history/movies?search=a%00b' },
      { method: 'GET' as const, url: '/api/users/bob/watchlist/movies?search=%00' },
      { method: 'GET' as const, url: '/api/movies/search?search=a%00' },
    ];
    for (const request of requests) {
      const response = await ctx.app.inject({ ...request, headers: json });
      expect(response.statusCode, request.url).toBe(400);
      expect(Object.keys(response.json()).sort(), request.url).toEqual(['error', 'message']);
      expect(response.json().message, request.url).toContain('NUL');
    }
    const named = await ctx.app.inject({ url: '/api/users/bob%00/history/movies', headers: bob.auth });
    expect(named.statusCode).toBe(404);
    expect(await ctx.db.selectFrom('watch_dates').selectAll().execute()).toEqual([]);
  });
});
