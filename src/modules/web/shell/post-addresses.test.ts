import { afterEach, beforeEach, expect, it } from 'vitest';
import { createUser, setupTestApp, type TestContext } from '../../../../test/harness.js';
import { signedInClient, WebClient } from '../../../../test/web-client.js';

let ctx: TestContext;

beforeEach(async () => {
  ctx = await setupTestApp();
  await createUser(ctx, { name: 'bob' });
});
afterEach(() => ctx.close());

// A form with an error is shown at its POST address; reloading it must lead back to the form's page.
it.each([
  ['/settings/account/password', '/settings/account'],
  ['/settings/account/email', '/settings/account'],
  ['/settings/account/profile', '/settings/account'],
  ['/settings/tokens/7/revoke', '/settings/tokens'],
  ['/settings/integrations/plex/url', '/settings/integrations'],
  ['/settings/integrations/plex/delete', '/settings/integrations'],
  ['/settings/account/two-factor/start', '/settings/account/two-factor'],
  ['/logout', '/'],
])('GET %s (a POST address) answers 303 to %s, not 404', async (address, page) => {
  const client = await signedInClient(ctx.app, 'bob');
  const response = await client.get(address);
  expect(response.statusCode).toBe(303);
  expect(response.headers.location).toBe(page);
  // The page itself (two-factor's page sends a user without a setup on to the account page).
  const followed = await client.follow(response);
  expect([200, 303]).toContain(followed.statusCode);
});

it('signed out, the redirect leads on to the sign-in page, and changes nothing', async () => {
  const client = new WebClient(ctx.app);
  const response = await client.get('/settings/account/password');
  expect(response.headers.location).toBe('/settings/account');
  const next = await client.follow(response);
  expect(next.statusCode).toBe(303);
  expect(next.headers.location).toMatch(/^\/login/);
});

it('an address that is neither a page nor a form stays a 404', async () => {
  const client = await signedInClient(ctx.app, 'bob');
  expect((await client.get('/settings/account/nothing')).statusCode).toBe(404);
});
