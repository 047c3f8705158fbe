import jsqr from 'jsqr';
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { codeFor, wrongCodeFor } from '../two-factor.js';
import {
  apiAs,
  browserSuite,
  browserWorld,
  clickAndLoad,
  openContext,
  PASSWORD,
  seedUser,
  signIn,
  textOf,
} from './browser.js';

const jsQR = jsqr.default;
const STEP = 30_000;

/** Draws the page's QR code on a canvas, 4 pixels a module: its width and RGBA pixels. */
const READ_QR_PIXELS = `(() => {
  const image = document.querySelector('img.qr');
  const canvas = document.createElement('canvas');
  canvas.width = image.naturalWidth * 4;
  canvas.height = image.naturalHeight * 4;
  const context = canvas.getContext('2d');
  context.imageSmoothingEnabled = false;
  context.drawImage(image, 0, 0, canvas.width, canvas.height);
  return { width: canvas.width, pixels: Array.from(context.getImageData(0, 0, canvas.width, canvas.height).data) };
})()`;

/** The QR code as the browser drew it, read back by a QR reader: the text it carries. */
async function qrCodeText(page: Page): Promise<string | undefined> {
  await page.locator('img.qr').waitFor();
  const { width, pixels } = (await page.evaluate(READ_QR_PIXELS)) as { width: number; pixels: number[] };
  return jsQR(Uint8ClampedArray.from(pixels), width, width)?.data;
}

/** Turns two-factor sign-in on through the account page; the key as the page shows it, and the recovery codes. */
async function setUp(page: Page): Promise<{ secret: string; recoveryCodes: string[] }> {
  await page.goto('/settings/account');
  const section = page.getByRole('region', { name: 'Two-factor sign-in' });
  await clickAndLoad(page, section.getByRole('button', { name: 'Set up two-factor sign-in' }));
  await page.getByRole('heading', { level: 1, name: 'Set up two-factor sign-in' }).waitFor();
  const secret = (await textOf(page.getByLabel('Setup key'))).replace(/ /g, '');
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  const uri = new URL((await qrCodeText(page)) ?? 'about:blank');
  expect(uri.protocol).toBe('otpauth:');
  expect(uri.searchParams.get('secret')).toBe(secret);
  await page.getByLabel('Code from the app', { exact: true }).fill(codeFor(secret, new Date()));
  await clickAndLoad(page, page.getByRole('button', { name: 'Turn on two-factor sign-in' }));
  await page.getByRole('heading', { level: 1, name: 'Two-factor sign-in is on' }).waitFor();
  const recoveryCodes = await page.locator('#recovery-codes li').allInnerTexts();
  return { secret, recoveryCodes: recoveryCodes.map((code) => code.trim()) };
}

/** The password step of a sign-in: it leads to the code page. */
async function passwordStep(page: Page, login: string): Promise<void> {
  await page.goto('/login');
  await page.getByLabel('User name or e-mail', { exact: true }).fill(login);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await clickAndLoad(page, page.getByRole('button', { name: 'Sign in' }));
  await page.getByRole('heading', { level: 1, name: 'Two-factor sign-in' }).waitFor();
}

browserSuite('browser: two-factor sign-in', () => {
  const world = browserWorld();

  it('is set up from the key on the page, then signs in with a code from the app and with a recovery code', async () => {
    const mia = await seedUser(world.server, 'mia');
    const { value: token } = await world.server.tokens.create(mia.id, 'script', 'never');
    const { context, page, problems } = await openContext(world.browser, world.server, {
      permissions: ['clipboard-read', 'clipboard-write'],
    });
    await signIn(page, 'mia');
    const { secret, recoveryCodes } = await setUp(page);
    expect(recoveryCodes).toHaveLength(10);
    for (const code of recoveryCodes) expect(code).toMatch(/^[0-9a-z]{4}(-[0-9a-z]{4}){3}$/);
    // The copy button gives one code a line, as a password manager's note takes them.
    await page.getByRole('button', { name: 'Copy the codes' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(recoveryCodes.join('\n'));
    await clickAndLoad(page, page.getByRole('link', { name: 'Done: back to the account' }));
    expect(await textOf(page.getByRole('region', { name: 'Two-factor sign-in' }))).toContain(
      '10 of 10 recovery codes left.',
    );

    await clickAndLoad(page, page.getByRole('button', { name: 'Sign out' }));
    await passwordStep(page, 'mia');
    expect(new URL(page.url()).pathname).toBe('/login/two-factor');
    expect(await page.getByText('Signed in as').count()).toBe(0);
    // The code of the setup's step is spent: the app's next one.
    await page.getByLabel('Code', { exact: true }).fill(codeFor(secret, new Date(Date.now() + STEP)));
    await clickAndLoad(page, page.getByRole('button', { name: 'Sign in' }));
    expect(await textOf(page.getByRole('banner'))).toContain('Signed in as mia');

    await clickAndLoad(page, page.getByRole('button', { name: 'Sign out' }));
    await passwordStep(page, 'mia');
    await clickAndLoad(page, page.getByRole('link', { name: 'Use a recovery code instead' }));
    await page.getByLabel('Recovery code', { exact: true }).fill(recoveryCodes[0]!);
    await clickAndLoad(page, page.getByRole('button', { name: 'Sign in' }));
    expect(await textOf(page.getByRole('banner'))).toContain('Signed in as mia');
    expect(await textOf(page.getByRole('status'))).toContain('You signed in with a recovery code');

    // The API never asks for a code.
    expect((await apiAs(world.server, token)).status).toBe(200);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('keeps its pages within a 375 px wide screen', async () => {
    await seedUser(world.server, 'narrow', { isAdmin: true });
    const { context, page, problems } = await openContext(world.browser, world.server, {
      viewport: { width: 375, height: 740 },
    });
    await signIn(page, 'narrow');
    const overflow = async (path: string) => ({
      path,
      overflow: await page.evaluate(
        'Math.max(document.body.scrollWidth, document.documentElement.scrollWidth) - document.documentElement.clientWidth',
      ),
    });
    const results = [];
    await page.goto('/settings/account');
    await clickAndLoad(page, page.getByRole('button', { name: 'Set up two-factor sign-in' }));
    results.push(await overflow('setup page'));
    await page.getByRole('heading', { level: 1, name: 'Set up two-factor sign-in' }).waitFor();
    const secret = (await textOf(page.getByLabel('Setup key'))).replace(/ /g, '');
    await page.getByLabel('Code from the app', { exact: true }).fill(wrongCodeFor(secret, new Date()));
    await clickAndLoad(page, page.getByRole('button', { name: 'Turn on two-factor sign-in' }));
    results.push(await overflow('setup page with an error'));
    expect(await textOf(page.getByRole('alert'))).toBe('The code is not correct.');
    await page.getByLabel('Code from the app', { exact: true }).fill(codeFor(secret, new Date()));
    await clickAndLoad(page, page.getByRole('button', { name: 'Turn on two-factor sign-in' }));
    results.push(await overflow('recovery codes'));
    for (const path of [
      '/settings/account',
      '/settings/account/two-factor/recovery-codes',
      '/settings/account/two-factor/turn-off',
      '/settings/users',
      '/settings/users/narrow/two-factor/turn-off',
    ]) {
      await page.goto(path);
      results.push(await overflow(path));
    }
    await clickAndLoad(page, page.getByRole('button', { name: 'Sign out' }));
    await passwordStep(page, 'narrow');
    results.push(await overflow('/login/two-factor'));
    await clickAndLoad(page, page.getByRole('link', { name: 'Use a recovery code instead' }));
    results.push(await overflow('/login/two-factor?with=recovery-code'));
    expect(results).toEqual(results.map(({ path }) => ({ path, overflow: 0 })));
    expect(problems).toEqual([]);
    await context.close();
  });
});
