import { describe, expect, it } from 'vitest';
import { manualClock } from '../../test/support/clock.js';
import { useTestDatabase } from '../../test/support/database.js';
import { listAuditEntries } from '../audit/audit-log.js';
import { FollowUpServerError } from '../errors.js';
import { createAccountStore } from './account-store.js';
import { hashSecret, parseToken } from './token-format.js';

describe('account store', () => {
  const database = useTestDatabase();
  const setup = () => {
    const clock = manualClock();
    return { clock, store: createAccountStore({ database: database(), clock }) };
  };

  it('creates and lists service accounts', async () => {
    const { store, clock } = setup();
    const first = await store.createAccount({ name: 'crm-sync', role: 'MANAGER' });
    clock.advance(1);
    const second = await store.createAccount({ name: 'reports', role: 'READONLY' });
    expect(first).toEqual({
      id: expect.stringMatching(/^sa_[0-9A-Z]{26}$/),
      name: 'crm-sync',
      role: 'MANAGER',
      createdAt: '2026-03-01T09:00:00.000Z',
    });
    expect(await store.listAccounts()).toEqual([first, second]);
    expect(await store.getAccount(second.id)).toEqual(second);
    expect(await store.getAccount('sa_missing')).toBeUndefined();
  });

  it('refuses an unknown role', async () => {
    const { store } = setup();
    await expect(
      store.createAccount({ name: 'x', role: 'OWNER' as 'ADMIN' }),
    ).rejects.toMatchObject({ code: 'invalid_role' });
  });

  it('issues a token that verifies, for its account', async () => {
    const { store } = setup();
    const account = await store.createAccount({ name: 'crm-sync', role: 'AGENT' });
    const issued = await store.issueToken({ accountId: account.id });
    expect(issued.id).toMatch(/^tok_/);
    expect(issued.expiresAt).toBeNull();
    expect(parseToken(issued.token)?.accountId).toBe(account.id);
    expect(await store.verifyToken(issued.token)).toEqual({
      ok: true,
      tokenId: issued.id,
      account,
    });
  });

  it('stores only the SHA-256 of the secret: no plaintext anywhere in the database', async () => {
    const { store } = setup();
    const account = await store.createAccount({ name: 'crm-sync', role: 'ADMIN' });
    const issued = [
      await store.issueToken({ accountId: account.id }),
      await store.issueToken({ accountId: account.id, ttlSeconds: 60 }),
    ];
    await store.revokeToken({ tokenId: issued[0]?.id ?? '' });
    const { rows: tables } = await database().query<{ name: string }>(
      `SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema()`,
    );
    let dump = '';
    for (const { name } of tables) {
      const { rows } = await database().query<{ row: string }>(
        `SELECT t::text AS row FROM "${name}" t`,
      );
      dump += rows.map((row) => row.row).join('\n');
    }
    expect(dump).toContain(account.id);
    for (const { token } of issued) {
      const secret = parseToken(token)?.secret ?? '';
      expect(dump).not.toContain(token);
      expect(dump).not.toContain(secret);
      expect(dump).not.toContain(Buffer.from(secret, 'base64url').toString('hex'));
      expect(dump).not.toContain(Buffer.from(secret, 'utf8').toString('hex'));
      expect(dump).toContain(hashSecret(secret).toString('hex'));
    }
    const { rows } = await database().query<{ secret_sha256: Buffer }>(
      'SELECT secret_sha256 FROM tokens ORDER BY created_at, id',
    );
    expect(rows.map((row) => row.secret_sha256.toString('hex')).sort()).toEqual(
      issued.map(({ token }) => hashSecret(parseToken(token)?.secret ?? '').toString('hex')).sort(),
    );
  });

  it('keeps several tokens of one account active at once (rotation)', async () => {
    const { store, clock } = setup();
    const account = await store.createAccount({ name: 'crm-sync', role: 'AGENT' });
    const old = await store.issueToken({ accountId: account.id });
    clock.advance(1000);
    const fresh = await store.issueToken({ accountId: account.id });
    expect((await store.verifyToken(old.token)).ok).toBe(true);
    expect((await store.verifyToken(fresh.token)).ok).toBe(true);
    await store.revokeToken({ tokenId: old.id });
    expect(await store.verifyToken(old.token)).toEqual({ ok: false, code: 'token_revoked' });
    expect(await store.verifyToken(fresh.token)).toMatchObject({ ok: true, tokenId: fresh.id });
    expect((await store.listTokens(account.id)).map((token) => [token.id, token.state])).toEqual([
      [old.id, 'revoked'],
      [fresh.id, 'active'],
    ]);
  });

  it('expires a token when its TTL elapses, by the injected clock', async () => {
    const { store, clock } = setup();
    const account = await store.createAccount({ name: 'crm-sync', role: 'AGENT' });
    const issued = await store.issueToken({ accountId: account.id, ttlSeconds: 3600 });
    expect(issued.expiresAt).toBe('2026-03-01T10:00:00.000Z');
    clock.advance(3600 * 1000 - 1);
    expect((await store.verifyToken(issued.token)).ok).toBe(true);
    clock.advance(1);
    expect(await store.verifyToken(issued.token)).toEqual({ ok: false, code: 'token_expired' });
    expect((await store.listTokens(account.id))[0]).toMatchObject({
      state: 'expired',
      expiresAt: '2026-03-01T10:00:00.000Z',
      revokedAt: null,
    });
  });

  it('refuses a TTL that is not a positive whole number of seconds', async () => {
    const { store } = setup();
    const account = await store.createAccount({ name: 'crm-sync', role: 'AGENT' });
    for (const ttlSeconds of [0, -5, 1.5, Number.NaN]) {
      await expect(store.issueToken({ accountId: account.id, ttlSeconds })).rejects.toMatchObject({
        code: 'invalid_ttl',
      });
    }
  });

  it('refuses to issue for an unknown account, and writes nothing', async () => {
    const { store } = setup();
    await expect(store.issueToken({ accountId: 'sa_missing' })).rejects.toMatchObject({
      code: 'account_not_found',
    });
    expect((await database().query('SELECT id FROM tokens')).rows).toEqual([]);
    expect((await listAuditEntries(database())).entries).toEqual([]);
  });

  it('tells token_invalid alike for an unknown account, a wrong secret and a malformed token', async () => {
    const { store } = setup();
    const account = await store.createAccount({ name: 'crm-sync', role: 'AGENT' });
    const issued = await store.issueToken({ accountId: account.id });
    const secret = parseToken(issued.token)?.secret ?? '';
    const wrongSecret = `${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
    const cases = [
      `hns_${account.id}.${wrongSecret}`,
      `hns_sa_01ARYZ6S41TSV4RRFFQ69G5FAV.${secret}`,
      `hns_${account.id}`,
      'Bearer nothing',
    ];
    for (const token of cases) {
      expect(await store.verifyToken(token)).toEqual({ ok: false, code: 'token_invalid' });
    }
    expect(await store.verifyToken(undefined)).toEqual({ ok: false, code: 'token_missing' });
    expect(await store.verifyToken('')).toEqual({ ok: false, code: 'token_missing' });
  });

  it('tells expired or revoked only once the secret matched', async () => {
    const { store, clock } = setup();
    const account = await store.createAccount({ name: 'crm-sync', role: 'AGENT' });
    const expiring = await store.issueToken({ accountId: account.id, ttlSeconds: 1 });
    const revoked = await store.issueToken({ accountId: account.id });
    await store.revokeToken({ tokenId: revoked.id });
    clock.advance(5000);
    for (const { token } of [expiring, revoked]) {
      const secret = parseToken(token)?.secret ?? '';
      const wrong = `${secret.slice(0, -2)}${secret.endsWith('AA') ? 'BB' : 'AA'}`;
      expect(await store.verifyToken(`hns_${account.id}.${wrong}`)).toEqual({
        ok: false,
        code: 'token_invalid',
      });
    }
    expect(await store.verifyToken(expiring.token)).toEqual({ ok: false, code: 'token_expired' });
    expect(await store.verifyToken(revoked.token)).toEqual({ ok: false, code: 'token_revoked' });
  });

  it('says revoked for a token both revoked and expired', async () => {
    const { store, clock } = setup();
    const account = await store.createAccount({ name: 'crm-sync', role: 'AGENT' });
    const issued = await store.issueToken({ accountId: account.id, ttlSeconds: 10 });
    await store.revokeToken({ tokenId: issued.id });
    clock.advance(60_000);
    expect(await store.verifyToken(issued.token)).toEqual({ ok: false, code: 'token_revoked' });
  });

  it('audits issue and revoke, once each, without the secret', async () => {
    const { store, clock } = setup();
    const account = await store.createAccount({ name: 'crm-sync', role: 'AGENT' });
    clock.advance(10);
    const issued = await store.issueToken({ accountId: account.id, ttlSeconds: 60 });
    clock.advance(10);
    const revoked = await store.revokeToken({
      tokenId: issued.id,
      actor: { type: 'service_account', id: 'sa_admin' },
    });
    expect(revoked).toMatchObject({
      id: issued.id,
      state: 'revoked',
      revokedAt: '2026-03-01T09:00:00.020Z',
    });
    clock.advance(10);
    // Revoking again changes nothing and records nothing.
    expect(await store.revokeToken({ tokenId: issued.id })).toEqual(revoked);
    const { entries } = await listAuditEntries(database());
    expect(
      entries.map(({ action, actor, target, metadata, occurredAt }) => ({
        action,
        actor,
        target,
        metadata,
        occurredAt,
      })),
    ).toEqual([
      {
        action: 'service_account.created',
        actor: { type: 'operator' },
        target: { type: 'service_account', id: account.id },
        metadata: { name: 'crm-sync', role: 'AGENT' },
        occurredAt: '2026-03-01T09:00:00.000Z',
      },
      {
        action: 'token.issued',
        actor: { type: 'operator' },
        target: { type: 'token', id: issued.id },
        metadata: { accountId: account.id, expiresAt: '2026-03-01T09:01:00.010Z' },
        occurredAt: '2026-03-01T09:00:00.010Z',
      },
      {
        action: 'token.revoked',
        actor: { type: 'service_account', id: 'sa_admin' },
        target: { type: 'token', id: issued.id },
        metadata: { accountId: account.id },
        occurredAt: '2026-03-01T09:00:00.020Z',
      },
    ]);
    expect(JSON.stringify(entries)).not.toContain(parseToken(issued.token)?.secret);
  });

  it('refuses to revoke an unknown token', async () => {
    const { store } = setup();
    const error = await store
      .revokeToken({ tokenId: 'tok_missing' })
      .catch((caught: unknown) => caught);
    expect(FollowUpServerError.isInstance(error)).toBe(true);
    expect((error as FollowUpServerError).code).toBe('token_not_found');
  });
});
