import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/support/server.js';
import { parseToken } from '../tokens/token-format.js';

describe('bearer authentication', () => {
  const server = useTestServer();

  async function audit(authorization?: string) {
    return server().app.inject({
      method: 'GET',
      url: '/api/audit',
      headers: authorization === undefined ? {} : { authorization },
    });
  }

  function expectUnauthorized(response: Awaited<ReturnType<typeof audit>>, code: string) {
    expect(response.statusCode).toBe(401);
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(response.json()).toMatchObject({ status: 401, code, title: 'Unauthorized' });
    expect(response.headers['www-authenticate']).toMatch(/^Bearer realm="followup"/);
  }

  it('marks every answer of an authenticated route no-store and nosniff, errors included', async () => {
    const { token } = await server().tokenFor('AGENT');
    const answers = [
      await audit(`Bearer ${token}`), // 403: AGENT lacks audit.read
      await audit(), // 401
      await server().app.inject({
        method: 'GET',
        url: '/api/contacts',
        headers: { authorization: `Bearer ${token}` },
      }), // 200
    ];
    expect(answers.map((answer) => answer.statusCode)).toEqual([403, 401, 200]);
    for (const answer of answers) {
      expect(answer.headers['cache-control']).toBe('no-store');
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
    }
  });

  it('lets a valid token in', async () => {
    const { token } = await server().tokenFor('ADMIN');
    const response = await audit(`Bearer ${token}`);
    expect(response.statusCode).toBe(200);
  });

  it('reads the scheme case-insensitively', async () => {
    const { token } = await server().tokenFor('ADMIN');
    expect((await audit(`bearer ${token}`)).statusCode).toBe(200);
    expect((await audit(`BEARER  ${token} `)).statusCode).toBe(200);
  });

  it('answers token_missing without an Authorization header, or with an empty one', async () => {
    for (const header of [undefined, '']) {
      const response = await audit(header);
      expectUnauthorized(response, 'token_missing');
      expect(response.headers['www-authenticate']).toBe('Bearer realm="followup"');
    }
  });

  it('answers token_malformed, saying the scheme must be Bearer, to a header without it', async () => {
    const { token } = await server().tokenFor('ADMIN');
    for (const header of [token, `Token ${token}`, 'Basic dXNlcjpwYXNz', 'Bearer', 'Bearer ']) {
      const response = await audit(header);
      expectUnauthorized(response, 'token_malformed');
      expect(response.json().detail).toBe(
        'The Authorization header must use the Bearer scheme: Authorization: Bearer <token>.',
      );
      expect(response.headers['www-authenticate']).toBe(
        'Bearer realm="followup", error="invalid_request"',
      );
    }
  });

  it('answers token_invalid alike for a malformed token, an unknown account and a wrong secret', async () => {
    const { token, accountId } = await server().tokenFor('ADMIN');
    const secret = parseToken(token)?.secret ?? '';
    const wrong = `${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
    const bodies: string[] = [];
    for (const candidate of [
      'hns_nonsense',
      `hns_sa_01ARYZ6S41TSV4RRFFQ69G5FAV.${secret}`,
      `hns_${accountId}.${wrong}`,
      `${token}x`,
    ]) {
      const response = await audit(`Bearer ${candidate}`);
      expectUnauthorized(response, 'token_invalid');
      expect(response.headers['www-authenticate']).toContain('error="invalid_token"');
      const { requestId: _requestId, ...body } = response.json();
      bodies.push(JSON.stringify(body));
    }
    // Nothing in the answer tells an unknown account from a wrong secret.
    expect(new Set(bodies).size).toBe(1);
  });

  it('answers token_expired (401, never 403) once the TTL elapses', async () => {
    const { token } = await server().tokenFor('ADMIN', 60);
    expect((await audit(`Bearer ${token}`)).statusCode).toBe(200);
    server().clock.advance(60_000);
    expectUnauthorized(await audit(`Bearer ${token}`), 'token_expired');
  });

  it('answers token_revoked at once when a token is revoked while the server runs', async () => {
    const { token, tokenId } = await server().tokenFor('ADMIN');
    expect((await audit(`Bearer ${token}`)).statusCode).toBe(200);
    await server().accounts.revokeToken({ tokenId });
    expectUnauthorized(await audit(`Bearer ${token}`), 'token_revoked');
  });

  it('answers 401, not 403, for an expired token whose role lacks the capability', async () => {
    const { token } = await server().tokenFor('READONLY', 1);
    expect((await audit(`Bearer ${token}`)).statusCode).toBe(403);
    server().clock.advance(1000);
    expectUnauthorized(await audit(`Bearer ${token}`), 'token_expired');
  });
});
