import { expect, it } from 'vitest';
import {
  browserSuite,
  browserWorld,
  clickAndLoad,
  expectAccessible,
  openContext,
  seedUser,
  signIn,
  textOf,
} from './browser.js';

browserSuite('browser: user administration', () => {
  const world = browserWorld();

  it('makes a user an administrator and deletes another after typing the name, on a narrow dark screen', async () => {
    await seedUser(world.server, 'ada', { isAdmin: true });
    await seedUser(world.server, 'bob');
    await seedUser(world.server, 'a-user-with-a-rather-long-name.for-narrow-screens');
    const { context, page, problems } = await openContext(world.browser, world.server, {
      viewport: { width: 375, height: 740 },
      colorScheme: 'dark',
    });
    const overflow = () =>
      page.evaluate(
        'Math.max(document.body.scrollWidth, document.documentElement.scrollWidth) - document.documentElement.clientWidth',
      );
    await signIn(page, 'ada');
    await page.goto('/settings/users');
    expect(await overflow()).toBe(0);
    await expectAccessible(page);

    await clickAndLoad(page, page.getByRole('button', { name: 'Make administrator: bob' }));
    expect(await textOf(page.getByRole('status'))).toContain('bob is an administrator.');
    expect((await world.server.users.findByName('bob'))?.isAdmin).toBe(true);
    await clickAndLoad(page, page.getByRole('button', { name: 'Remove administrator role of bob' }));
    expect((await world.server.users.findByName('bob'))?.isAdmin).toBe(false);

    await clickAndLoad(page, page.getByRole('link', { name: 'Delete bob' }));
    await page.getByRole('heading', { level: 1, name: 'Delete the user bob?' }).waitFor();
    expect(await overflow()).toBe(0);
    await expectAccessible(page);
    // The wrong name: refused, said next to the field.
    await page.getByLabel('Type the user name bob to confirm').fill('Bob');
    await clickAndLoad(page, page.getByRole('button', { name: 'Delete bob and their data' }));
    expect(await textOf(page.getByRole('alert'))).toBe('Type the user name bob to confirm.');
    await expectAccessible(page);
    expect(await world.server.users.findByName('bob')).toBeDefined();

    await page.getByLabel('Type the user name bob to confirm').fill('bob');
    await clickAndLoad(page, page.getByRole('button', { name: 'Delete bob and their data' }));
    expect(new URL(page.url()).pathname).toBe('/settings/users');
    expect(await textOf(page.getByRole('status'))).toContain('The user bob is deleted');
    expect(await world.server.users.findByName('bob')).toBeUndefined();
    expect(await page.getByRole('link', { name: 'Delete bob' }).count()).toBe(0);
    expect(problems).toEqual([]);
    await context.close();
  });
});
