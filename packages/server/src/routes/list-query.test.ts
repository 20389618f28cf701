import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/support/server.js';
import { MAX_LIST_OFFSET } from './list-query.js';

const server = useTestServer();

describe('offset of limit/offset lists', () => {
  it.each([
    '/api/contacts',
    '/api/deals',
    '/api/sequences',
    '/api/campaigns',
    '/api/users',
    '/api/messages',
  ])(
    '%s answers 400 validation_failed past the maximum offset, and accepts the maximum',
    async (path) => {
      const { token } = await server().tokenFor('ADMIN');
      const headers = { authorization: `Bearer ${token}` };
      const over = await server().app.inject({
        method: 'GET',
        url: `${path}?offset=${MAX_LIST_OFFSET + 1}`,
        headers,
      });
      expect(over.statusCode).toBe(400);
      expect(over.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(over.json()).toMatchObject({
        code: 'validation_failed',
        errors: [expect.objectContaining({ path: 'offset' })],
      });
      const huge = await server().app.inject({
        method: 'GET',
        url: `${path}?offset=9007199254740991`,
        headers,
      });
      expect(huge.statusCode).toBe(400);
      const atMost = await server().app.inject({
        method: 'GET',
        url: `${path}?offset=${MAX_LIST_OFFSET}`,
        headers,
      });
      expect(atMost.statusCode).toBe(200);
    },
  );
});
