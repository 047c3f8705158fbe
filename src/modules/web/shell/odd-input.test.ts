import { afterEach, beforeEach, expect, it } from 'vitest';
import { createUser, setupTestApp, type TestContext } from '../../../../test/harness.js';
import { signedInClient } from '../../../../test/web-client.js';

let ctx: TestContext;
beforeEach(async () => {
  ctx = await setupTestApp();
});
afterEach(() => ctx.close());

const FORM_PATHS = [
  '/setup',
  '/login',
  '/logout',
  '/register',
  '/settings/tokens',
  '/settings/tokens/1/revoke',
  '/settings/tokens/revoke-all',
  '/settings/account/password',
  '/settings/account/profile',
  '/settings/users',
  '/forgot-password',
  '/reset-password',
  '/reset-password/abc',
  '/settings/integrations/plex/url',
  '/settings/integrations/plex/options',
  '/settings/integrations/nowhere/delete',
  '/login/two-factor',
  '/settings/account/two-factor/start',
  '/settings/account/two-factor/confirm',
  '/settings/account/two-factor/cancel',
  '/settings/account/two-factor/recovery-codes',
  '/settings/account/two-factor/turn-off',
  '/settings/users/bob/two-factor/turn-off',
];

it('answers odd forms, bodies and addresses on every page with a 4xx page, never a 5xx', async () => {
  await createUser(ctx, { name: 'bob' });
  const browser = await signedInClient(ctx.app, 'bob');
  await browser.get('/settings/tokens');
  const csrf = browser.csrfToken();
  const bodies = [
    { type: 'application/x-www-form-urlencoded', body: `name=a&name=b&expiry=30&_csrf=${csrf}` },
    { type: 'application/x-www-form-urlencoded', body: '%%%&&&=' },
    { type: 'application/x-www-form-urlencoded', body: `_csrf=${csrf}&x=${'a'.repeat(100_000)}` },
    { type: 'application/json', body: JSON.stringify({ _csrf: csrf, name: ['x'], password: { a: 1 } }) },
    { type: 'application/json', body: '{bad' },
    { type: 'text/plain', body: 'hello' },
    { type: 'multipart/form-data; boundary=x', body: '--x--' },
  ];
  const failures: string[] = [];
  for (const path of FORM_PATHS) {
    for (const { type, body } of bodies) {
      for (const method of ['POST', 'PUT', 'DELETE'] as const) {
        const response = await ctx.app.inject({
          method,
          url: path,
          headers: { 'content-type': type, accept: 'text/html' },
          payload: body,
          cookies: Object.fromEntries(browser.cookies),
        });
        if (response.statusCode >= 500) failures.push(`${method} ${path} (${type}): ${response.statusCode}`);
        else expect(response.statusCode, `${method} ${path} (${type})`).toBeGreaterThanOrEqual(300);
      }
    }
  }
  for (const url of [
    '/login?next[]=a',
    `/login?next=${'a'.repeat(5000)}`,
    `/reset-password/${'a'.repeat(43)}`,
    '/settings/tokens?x=%ZZ',
    '/settings/integrations?server=<script>',
    '/login/two-factor?with[]=recovery-code',
    '/settings/users/%ff/two-factor/turn-off',
    `/settings/users/${'a'.repeat(300)}/two-factor/turn-off`,
  ]) {
    const response = await browser.get(url);
    if (response.statusCode >= 500) failures.push(`GET ${url}: ${response.statusCode}`);
  }
  expect(failures).toEqual([]);
  // None of it created anything.
  expect(await ctx.db.selectFrom('api_tokens').select('id').execute()).toHaveLength(1);
  expect(await ctx.users.count()).toBe(1);
});
