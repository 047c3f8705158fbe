import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/databases.js';
import { TestClock } from '../../../test/harness.js';
import { ValidationError } from '../../shared/errors.js';
import { endSignInsOnChange } from '../auth/credentials.js';
import { createUsersService } from './users.service.js';

let database: TestDatabase;
let users: ReturnType<typeof createUsersService>;

beforeEach(async () => {
  database = await createTestDatabase();
  users = createUsersService({
    credentials: endSignInsOnChange,
    db: database.db,
    clock: new TestClock(),
    defaultTimezone: 'UTC',
  });
});
afterEach(() => database.destroy());

describe('creating users at the same moment', () => {
  // Two admins' forms, two first sign-ins through single sign-on: on PostgreSQL each create ran on its
  // own connection, both found the name free, and the second insert broke the unique index (a 500).
  for (const [what, email] of [
    ['one name', (i: number) => `same${i}@example.test`],
    ['one e-mail address', () => 'same@example.test'],
  ] as const) {
    it(`makes one account of eight creates with ${what}; the others are refused as taken`, async () => {
      const results = await Promise.allSettled(
        [0, 1, 2, 3, 4, 5, 6, 7].map((i) =>
          users.create({
            name: what === 'one name' ? 'same' : `same${i}`,
            email: email(i),
            password: 'correct horse battery',
          }),
        ),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const result of results) {
        if (result.status === 'rejected') {
          expect(result.reason).toBeInstanceOf(ValidationError);
          expect(String(result.reason.message)).toMatch(/already exists/);
        }
      }
      expect(await users.count()).toBe(1);
    });
  }

  it('gives one new e-mail address to one of eight users changing to it at once', async () => {
    const names = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => `user${i}`);
    for (const name of names) {
      await users.create({ name, email: `${name}@example.test`, password: 'correct horse battery' });
    }
    const results = await Promise.allSettled(
      names.map((name) => users.update(name, { email: 'wanted@example.test' })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const result of results) {
      if (result.status === 'rejected') expect(result.reason).toBeInstanceOf(ValidationError);
    }
  });
});
