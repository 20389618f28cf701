import { describe, expect, it } from 'vitest';
import { manualClock } from '../../test/support/clock.js';
import { transactionsSettled, useTestDatabase } from '../../test/support/database.js';
import { listAuditEntries } from '../audit/audit-log.js';
import { FollowUpServerError } from '../errors.js';
import type { Database } from '../storage/database.js';
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
      disabledAt: null,
    });
    expect(await store.listAccounts()).toEqual([
      { ...first, activeTokens: 0 },
      { ...second, activeTokens: 0 },
    ]);
    expect(await store.listAccounts({ limit: 1, offset: 1 })).toEqual([
      { ...second, activeTokens: 0 },
    ]);
    await expect(store.listAccounts({ limit: 0 })).rejects.toMatchObject({ code: 'invalid_page' });
    await expect(store.listAccounts({ offset: -1 })).rejects.toMatchObject({
      code: 'invalid_page',
    });
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
    await transactionsSettled(database());
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
    await transactionsSettled(database());
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

  it('keeps a label with a token, and refuses one that is empty, too long or not printable', async () => {
    const { store } = setup();
    const account = await store.createAccount({ name: 'crm-sync', role: 'AGENT' });
    const issued = await store.issueToken({ accountId: account.id, label: 'ci deploy <prod>' });
    expect(issued.label).toBe('ci deploy <prod>');
    expect(await store.getToken(issued.id)).toMatchObject({ label: 'ci deploy <prod>' });
    const unlabelled = await store.issueToken({ accountId: account.id });
    expect((await store.listTokens(account.id)).map((token) => token.label)).toEqual([
      'ci deploy <prod>',
      null,
    ]);
    expect(unlabelled.label).toBeNull();
    for (const label of [
      '',
      '   ',
      'x'.repeat(101),
      'a\nb',
      'nul\u0000',
      'lone \ud800',
      '\u2028',
    ]) {
      await expect(store.issueToken({ accountId: account.id, label })).rejects.toMatchObject({
        code: 'invalid_label',
      });
    }
    expect(
      await store.issueToken({ accountId: account.id, label: '😀'.repeat(100) }),
    ).toMatchObject({ label: '😀'.repeat(100) });
    await transactionsSettled(database());
    const { entries } = await listAuditEntries(database());
    expect(entries.find((entry) => entry.target.id === issued.id)?.metadata).toEqual({
      accountId: account.id,
      expiresAt: null,
      label: 'ci deploy <prod>',
    });
  });

  it('writes lastUsedAt at most once a minute per token, not on every request', async () => {
    const clock = manualClock();
    const writes: string[] = [];
    const inner = database();
    const counting: Database = {
      driver: inner.driver,
      query: (sql, params) => {
        if (/^\s*UPDATE tokens SET last_used_at/.test(sql)) writes.push(String(params?.[0]));
        return inner.query(sql, params);
      },
      transaction: (callback) => inner.transaction(callback),
      close: () => inner.close(),
    };
    const store = createAccountStore({ database: counting, clock });
    const account = await store.createAccount({ name: 'crm-sync', role: 'AGENT' });
    const issued = await store.issueToken({ accountId: account.id });
    expect((await store.getToken(issued.id))?.lastUsedAt).toBeNull();
    clock.advance(5_000);
    for (let request = 0; request < 20; request++) {
      expect((await store.verifyToken(issued.token)).ok).toBe(true);
      clock.advance(1_000);
    }
    expect(writes).toEqual([issued.id]);
    expect((await store.getToken(issued.id))?.lastUsedAt).toBe('2026-03-01T09:00:05.000Z');
    clock.set('2026-03-01T09:01:05.000Z');
    expect((await store.verifyToken(issued.token)).ok).toBe(true);
    expect((await store.verifyToken(issued.token)).ok).toBe(true);
    expect(writes).toEqual([issued.id, issued.id]);
    expect((await store.listTokens(account.id))[0]?.lastUsedAt).toBe('2026-03-01T09:01:05.000Z');
    // Another process (a fresh store) reads the row's value and does not write again either.
    const other = createAccountStore({ database: counting, clock });
    clock.advance(30_000);
    expect((await other.verifyToken(issued.token)).ok).toBe(true);
    expect(writes).toHaveLength(2);
    // A refused token is not "used".
    await store.revokeToken({ tokenId: issued.id });
    clock.advance(120_000);
    expect(await store.verifyToken(issued.token)).toEqual({ ok: false, code: 'token_revoked' });
    expect(writes).toHaveLength(2);
  });

  it('rolls a token: the replacement works at once, the old one until the grace ends', async () => {
    const { store, clock } = setup();
    const account = await store.createAccount({ name: 'crm-sync', role: 'AGENT' });
    const old = await store.issueToken({ accountId: account.id, label: 'deploy' });
    clock.advance(1_000);
    const { issued, previous } = await store.rollToken({ tokenId: old.id, graceSeconds: 90 });
    expect(issued).toMatchObject({
      id: expect.stringMatching(/^tok_/),
      expiresAt: null,
      label: 'deploy',
    });
    expect(issued.id).not.toBe(old.id);
    expect(previous).toMatchObject({
      id: old.id,
      state: 'active',
      expiresAt: '2026-03-01T09:01:31.000Z',
      replacedBy: issued.id,
    });
    expect(await store.verifyToken(issued.token)).toMatchObject({ ok: true, tokenId: issued.id });
    clock.set('2026-03-01T09:01:30.999Z');
    expect((await store.verifyToken(old.token)).ok).toBe(true);
    clock.advance(1);
    expect(await store.verifyToken(old.token)).toEqual({ ok: false, code: 'token_expired' });
    expect((await store.verifyToken(issued.token)).ok).toBe(true);
    await expect(store.rollToken({ tokenId: old.id, graceSeconds: 60 })).rejects.toMatchObject({
      code: 'token_not_active',
    });
    await transactionsSettled(database());
    const { entries } = await listAuditEntries(database());
    expect(
      entries.slice(-2).map(({ action, target, metadata }) => ({ action, target, metadata })),
    ).toEqual([
      {
        action: 'token.issued',
        target: { type: 'token', id: issued.id },
        metadata: { accountId: account.id, expiresAt: null, label: 'deploy' },
      },
      {
        action: 'token.rolled',
        target: { type: 'token', id: old.id },
        metadata: {
          accountId: account.id,
          replacedBy: issued.id,
          graceSeconds: 90,
          expiresAt: '2026-03-01T09:01:31.000Z',
        },
      },
    ]);
  });

  it('gives a rolled token with a TTL the same lifetime, and never extends the old one', async () => {
    const { store, clock } = setup();
    const account = await store.createAccount({ name: 'crm-sync', role: 'AGENT' });
    const old = await store.issueToken({ accountId: account.id, ttlSeconds: 3_600 });
    clock.advance(3_000_000);
    const { issued, previous } = await store.rollToken({ tokenId: old.id, graceSeconds: 86_400 });
    expect(issued.expiresAt).toBe('2026-03-01T10:50:00.000Z');
    expect(previous.expiresAt).toBe('2026-03-01T10:00:00.000Z');
  });

  it('refuses a bad grace period, and an unknown or revoked token, writing nothing', async () => {
    const { store } = setup();
    const account = await store.createAccount({ name: 'crm-sync', role: 'AGENT' });
    const issued = await store.issueToken({ accountId: account.id });
    for (const graceSeconds of [-1, 1.5, Number.NaN, 30 * 86_400 + 1]) {
      await expect(store.rollToken({ tokenId: issued.id, graceSeconds })).rejects.toMatchObject({
        code: 'invalid_grace',
      });
    }
    await expect(
      store.rollToken({ tokenId: 'tok_missing', graceSeconds: 0 }),
    ).rejects.toMatchObject({ code: 'token_not_found' });
    await store.revokeToken({ tokenId: issued.id });
    await expect(store.rollToken({ tokenId: issued.id, graceSeconds: 0 })).rejects.toMatchObject({
      code: 'token_not_active',
    });
    expect(await store.listTokens(account.id)).toHaveLength(1);
  });

  it('disables an account: every token that works is revoked, and no new one is issued', async () => {
    const { store, clock } = setup();
    const account = await store.createAccount({ name: 'crm-sync', role: 'AGENT' });
    const other = await store.createAccount({ name: 'reports', role: 'READONLY' });
    const first = await store.issueToken({ accountId: account.id });
    const second = await store.issueToken({ accountId: account.id, ttlSeconds: 3_600 });
    const expired = await store.issueToken({ accountId: account.id, ttlSeconds: 1 });
    const kept = await store.issueToken({ accountId: other.id });
    clock.advance(2_000);
    expect((await store.listAccounts()).map((summary) => summary.activeTokens)).toEqual([2, 1]);
    const result = await store.disableAccount({
      accountId: account.id,
      actor: { type: 'service_account', id: 'sa_admin' },
    });
    expect(result).toEqual({
      account: { ...account, disabledAt: '2026-03-01T09:00:02.000Z' },
      tokensRevoked: 2,
    });
    for (const { token } of [first, second]) {
      expect(await store.verifyToken(token)).toEqual({ ok: false, code: 'token_revoked' });
    }
    expect(await store.verifyToken(expired.token)).toEqual({ ok: false, code: 'token_expired' });
    expect((await store.verifyToken(kept.token)).ok).toBe(true);
    await expect(store.issueToken({ accountId: account.id })).rejects.toMatchObject({
      code: 'account_disabled',
    });
    expect((await store.listAccounts()).map((summary) => summary.activeTokens)).toEqual([0, 1]);
    expect(await store.getAccount(account.id)).toMatchObject({
      disabledAt: '2026-03-01T09:00:02.000Z',
    });
    // Again: nothing changes, nothing is recorded.
    clock.advance(1_000);
    expect(await store.disableAccount({ accountId: account.id })).toEqual({
      account: result.account,
      tokensRevoked: 0,
    });
    await transactionsSettled(database());
    const disabled = (await listAuditEntries(database())).entries.filter(
      (entry) => entry.action === 'service_account.disabled',
    );
    expect(disabled.map(({ actor, target, metadata }) => ({ actor, target, metadata }))).toEqual([
      {
        actor: { type: 'service_account', id: 'sa_admin' },
        target: { type: 'service_account', id: account.id },
        metadata: { tokensRevoked: 2 },
      },
    ]);
    await expect(store.disableAccount({ accountId: 'sa_missing' })).rejects.toMatchObject({
      code: 'account_not_found',
    });
  });
});
