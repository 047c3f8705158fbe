import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createUser, setupTestApp, type TestContext } from '../../../test/harness.js';
import { openDatabase } from '../../db/database.js';
import { createApiTokensService } from './api-tokens.service.js';
import { hashToken } from './token-format.js';

const CHECK = '/api/authentication/token';

describe('token authentication', () => {
  let ctx: TestContext;
  beforeEach(async () => {
    ctx = await setupTestApp();
  });
  afterEach(async () => {
    await ctx.close();
  });

  const check = (headers: Record<string, string>) => ctx.app.inject({ method: 'GET', url: CHECK, headers });

  const expectUnauthenticated = (res: Awaited<ReturnType<typeof check>>) => {
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer');
    expect(res.body).toBe('');
  };

  it('returns the user for a Bearer token and for X-Service-Token', async () => {
    const alice = await createUser(ctx, { name: 'alice', isAdmin: true });
    const forms: Record<string, string>[] = [
      { authorization: `Bearer ${alice.token}` },
      { 'x-service-token': alice.token },
    ];
    for (const headers of forms) {
      const res = await check(headers);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ user: { name: 'alice', id: alice.user.id, isAdmin: true } });
    }
  });

  it('accepts the bearer scheme case-insensitively', async () => {
    const alice = await createUser(ctx);
    expect((await check({ authorization: `bearer ${alice.token}` })).statusCode).toBe(200);
  });

  it('ignores other Authorization schemes, so Basic for a proxy plus X-Service-Token works', async () => {
    const alice = await createUser(ctx);
    const res = await check({ authorization: 'Basic cHJveHk6c2VjcmV0', 'x-service-token': alice.token });
    expect(res.statusCode).toBe(200);
    expectUnauthenticated(await check({ authorization: 'Basic cHJveHk6c2VjcmV0' }));
  });

  it('rejects both credential forms at once, even when both are valid', async () => {
    const alice = await createUser(ctx);
    expectUnauthenticated(
      await check({ authorization: `Bearer ${alice.token}`, 'x-service-token': alice.token }),
    );
  });

  it('gives the identical 401 for missing, malformed, unknown, expired and revoked tokens', async () => {
    const alice = await createUser(ctx);
    const expiring = await ctx.tokens.create(alice.user.id, 'short', '30');
    const revoked = await ctx.tokens.create(alice.user.id, 'revoked', 'never');
    await ctx.tokens.revoke(alice.user.id, revoked.token.displayPrefix);
    ctx.clock.advance(31 * 86_400_000);
    const unknown = `cinelog_${'A'.repeat(43)}`;
    const cases: Record<string, string>[] = [
      {},
      { authorization: 'Bearer' },
      { authorization: 'Bearer ' },
      { authorization: 'Bearer not-a-token' },
      { 'x-service-token': '' },
      { authorization: `Bearer ${unknown}` },
      { authorization: `Bearer ${expiring.value}` },
      { 'x-service-token': revoked.value },
      { authorization: `Bearer ${alice.token}x` },
    ];
    for (const headers of cases) expectUnauthenticated(await check(headers));
    // The never-expiring token still works after the others expired.
    expect((await check(alice.auth)).statusCode).toBe(200);
  });

  it('expires a token exactly at its expiry time', async () => {
    const alice = await createUser(ctx);
    const token = await ctx.tokens.create(alice.user.id, 'month', '30');
    ctx.clock.advance(30 * 86_400_000 - 1000);
    expect((await check({ authorization: `Bearer ${token.value}` })).statusCode).toBe(200);
    ctx.clock.advance(1000);
    expectUnauthenticated(await check({ authorization: `Bearer ${token.value}` }));
  });

  it('revoking one token leaves the others; revoking all stops every one at once', async () => {
    const alice = await createUser(ctx);
    const second = await ctx.tokens.create(alice.user.id, 'second', '90');
    await ctx.tokens.revoke(alice.user.id, second.token.displayPrefix);
    expectUnauthenticated(await check({ authorization: `Bearer ${second.value}` }));
    expect((await check(alice.auth)).statusCode).toBe(200);
    expect(await ctx.tokens.revokeAll(alice.user.id)).toBe(1);
    expectUnauthenticated(await check(alice.auth));
  });

  it('a password reset revokes every token; tokens of other users stay', async () => {
    const alice = await createUser(ctx);
    const bob = await createUser(ctx);
    await ctx.tokens.create(alice.user.id, 'another', 'never');
    expect(await ctx.users.resetPassword(alice.user.name, 'a new secret phrase')).toEqual({
      revokedTokens: 2,
      twoFactorTurnedOff: false,
    });
    expectUnauthenticated(await check(alice.auth));
    expect((await check(bob.auth)).statusCode).toBe(200);
  });

  it('stores only a SHA-256 hash and a short display prefix, never the token', async () => {
    const alice = await createUser(ctx);
    const rows = await ctx.db
      .selectFrom('api_tokens')
      .selectAll()
      .where('user_id', '=', alice.user.id)
      .execute();
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    expect(row.token_hash).toBe(hashToken(alice.token));
    expect(alice.token).toMatch(/^cinelog_[A-Za-z0-9_-]{43}$/);
    expect(row.display_prefix).toBe(alice.token.slice(0, 16));
    expect(JSON.stringify(row)).not.toContain(alice.token.slice(16));
  });

  it('makes tokens of 256 random bits that never repeat', async () => {
    const alice = await createUser(ctx);
    const values = new Set<string>();
    for (let i = 0; i < 20; i++) values.add((await ctx.tokens.create(alice.user.id, `t${i}`, 'never')).value);
    expect(values.size).toBe(20);
    for (const value of values) expect(Buffer.from(value.slice(8), 'base64url')).toHaveLength(32);
  });

  it('writes the last-used time at most once a minute', async () => {
    const alice = await createUser(ctx);
    const lastUsed = async () =>
      (
        await ctx.db
          .selectFrom('api_tokens')
          .select('last_used_at')
          .where('user_id', '=', alice.user.id)
          .executeTakeFirstOrThrow()
      ).last_used_at;
    expect(await lastUsed()).toBeNull();
    await check(alice.auth);
    const first = await lastUsed();
    expect(first).toBe(ctx.clock.now().toISOString());
    ctx.clock.advance(30_000);
    await check(alice.auth);
    expect(await lastUsed()).toBe(first);
    ctx.clock.advance(31_000);
    await check(alice.auth);
    expect(await lastUsed()).toBe(ctx.clock.now().toISOString());
  });

  it('lists tokens with their states and no secret', async () => {
    const alice = await createUser(ctx);
    const expiring = await ctx.tokens.create(alice.user.id, 'expiring', '30');
    const revoked = await ctx.tokens.create(alice.user.id, 'revoked', '365');
    await ctx.tokens.revoke(alice.user.id, revoked.token.displayPrefix);
    ctx.clock.advance(40 * 86_400_000);
    const list = await ctx.tokens.list(alice.user.id);
    expect(list.map((t) => [t.name, t.state])).toEqual(
      expect.arrayContaining([
        ['test token', 'active'],
        ['expiring', 'expired'],
        ['revoked', 'revoked'],
      ]),
    );
    expect(JSON.stringify(list)).not.toContain(expiring.value);
    expect(list.find((t) => t.name === 'expiring')?.expiresAt).toBe('2024-07-15T12:00:00.000Z');
  });

  it('checks 401 before 404 before 403 before 400', async () => {
    const alice = await createUser(ctx);
    const bob = await createUser(ctx);
    const post = (name: string, headers: Record<string, string>) =>
      ctx.app.inject({
        method: 'POST',
        url: `/api/users/${name}/history/movies`,
        headers: { ...headers, 'content-type': 'application/json' },
        payload: '{not json',
      });
    expectUnauthenticated(await post('nobody', {}));
    expect((await post('nobody', alice.auth)).statusCode).toBe(404);
    expect((await post(bob.user.name, alice.auth)).statusCode).toBe(403);
    const invalid = await post(alice.user.name, alice.auth);
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json().error).toBe('InvalidJson');
  });

  it('forbids an admin to write another user’s data', async () => {
    const admin = await createUser(ctx, { isAdmin: true });
    const bob = await createUser(ctx);
    const res = await ctx.app.inject({
      method: 'POST',
      url: `/api/users/${bob.user.name}/history/movies`,
      headers: admin.auth,
      payload: [],
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toBe('Forbidden');
  });

  it('sees a revocation made through another connection (the CLI) on the very next request', async () => {
    const alice = await createUser(ctx);
    expect((await check(alice.auth)).statusCode).toBe(200);
    expect((await check(alice.auth)).statusCode).toBe(200);
    const other = openDatabase(ctx.config.databaseUrl);
    try {
      await createApiTokensService({ db: other.db, clock: ctx.clock }).revokeAll(alice.user.id);
    } finally {
      await other.close();
    }
    expectUnauthenticated(await check(alice.auth));
  });
});
