import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/support/server.js';
import { buildServer } from '../build-server.js';
import { roles } from '../tokens/role.js';

const secret = 'inbox-shared-secret-7c41';

// One database for the file: both describes share it (emptied before each test).
const server = useTestServer({ inboxWebhookSecret: secret });

describe('POST /api/inbox/webhook', () => {
  function post(
    payload: unknown,
    headers: Record<string, string> = { 'x-service-webhook-secret': secret },
  ) {
    return server().app.inject({
      method: 'POST',
      url: '/api/inbox/webhook',
      headers: { 'content-type': 'application/json', ...headers },
      payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
    });
  }

  it('stores the message and answers 201 with its id', async () => {
    const response = await post({ from: 'ada@example.com', subject: 'Follow-up', text: 'Call me' });
    expect(response.statusCode).toBe(201);
    expect(response.headers['x-request-id']).toMatch(/^req_/);
    const { id } = response.json();
    expect(response.json()).toEqual({ id: expect.stringMatching(/^msg_[0-9A-Z]{26}$/) });
    const { rows } = await server().database.query(
      'SELECT id, sender, subject, text, received_at FROM messages',
    );
    expect(rows).toEqual([
      {
        id,
        sender: 'ada@example.com',
        subject: 'Follow-up',
        text: 'Call me',
        received_at: '2026-03-01T09:00:00.000Z',
      },
    ]);
  });

  it('accepts a message without text, and ignores fields it does not know', async () => {
    const response = await post({ from: 'ada@example.com', subject: '', cc: ['x@example.com'] });
    expect(response.statusCode).toBe(201);
    const { rows } = await server().database.query('SELECT subject, text FROM messages');
    expect(rows).toEqual([{ subject: '', text: null }]);
  });

  it.each([
    ['no header', {}],
    ['an empty header', { 'x-service-webhook-secret': '' }],
    [
      'a wrong secret of the same length',
      { 'x-service-webhook-secret': `${secret.slice(0, -1)}x` },
    ],
    ['a longer secret', { 'x-service-webhook-secret': `${secret}x` }],
    ['a prefix of the secret', { 'x-service-webhook-secret': secret.slice(0, 5) }],
    ['the secret as a bearer token', { authorization: `Bearer ${secret}` }],
  ])('answers 401 webhook_secret_invalid with %s, and stores nothing', async (_name, headers) => {
    const response = await post({ from: 'ada@example.com', subject: 'Hi' }, headers);
    expect(response.statusCode).toBe(401);
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(response.json()).toMatchObject({ status: 401, code: 'webhook_secret_invalid' });
    expect((await server().database.query('SELECT id FROM messages')).rows).toEqual([]);
  });

  it('checks the secret before the body: a wrong secret with a bad body is still 401', async () => {
    const response = await post('{not json', { 'x-service-webhook-secret': 'wrong' });
    expect(response.statusCode).toBe(401);
  });

  it.each([
    ['from', { subject: 'Hi' }, ['from']],
    ['subject', { from: 'ada@example.com' }, ['subject']],
    ['both', { text: 'only text' }, ['from', 'subject']],
    ['an empty from', { from: '', subject: 'Hi' }, ['from']],
    ['a from that is not a string', { from: 42, subject: 'Hi' }, ['from']],
  ])('answers 400 validation_failed without %s', async (_name, payload, paths) => {
    const response = await post(payload);
    expect(response.statusCode).toBe(400);
    const body = response.json();
    expect(body).toMatchObject({ status: 400, code: 'validation_failed' });
    expect(body.errors.map((error: { path: string }) => error.path).sort()).toEqual(paths);
    expect((await server().database.query('SELECT id FROM messages')).rows).toEqual([]);
  });

  it('answers 400 for a body that is not an object', async () => {
    expect((await post('[]')).statusCode).toBe(400);
    expect((await post('"text"')).statusCode).toBe(400);
  });

  it('is open, with a warning at start, when no secret is configured', async () => {
    const logs: string[] = [];
    const app = buildServer({
      database: server().database,
      clock: server().clock,
      logger: { level: 'info', stream: { write: (line) => logs.push(line) } },
    });
    try {
      await app.ready();
      const warnings = logs.map((line) => JSON.parse(line)).filter((line) => line.level === 40);
      expect(warnings.map((line) => line.msg).join('\n')).toContain(
        'INBOX_WEBHOOK_SECRET is not set',
      );
      const response = await app.inject({
        method: 'POST',
        url: '/api/inbox/webhook',
        payload: { from: 'ada@example.com', subject: 'Hi' },
      });
      expect(response.statusCode).toBe(201);
    } finally {
      await app.close();
    }
  });

  it('logs no warning when a secret is configured', async () => {
    const logs: string[] = [];
    const app = buildServer({
      database: server().database,
      inboxWebhookSecret: secret,
      logger: { level: 'info', stream: { write: (line) => logs.push(line) } },
    });
    await app.ready();
    await app.close();
    expect(logs.join('')).not.toContain('INBOX_WEBHOOK_SECRET');
  });
});

describe('GET /api/messages', () => {
  async function store(count: number) {
    const ids: string[] = [];
    for (let index = 0; index < count; index++) {
      server().clock.advance(1000);
      const response = await server().app.inject({
        method: 'POST',
        url: '/api/inbox/webhook',
        headers: { 'x-service-webhook-secret': secret },
        payload:
          index % 2 === 0
            ? {
                from: `sender${index}@example.com`,
                subject: `Subject ${index}`,
                text: `Body ${index}`,
              }
            : { from: `sender${index}@example.com`, subject: `Subject ${index}` },
      });
      ids.push(response.json().id);
    }
    return ids;
  }

  async function list(token: string, query = '') {
    return server().app.inject({
      method: 'GET',
      url: `/api/messages${query}`,
      headers: { authorization: `Bearer ${token}` },
    });
  }

  it.each(roles)('answers %s with 200 (contacts.read)', async (role) => {
    const { token } = await server().tokenFor(role);
    expect((await list(token)).statusCode).toBe(200);
  });

  it('needs a bearer token', async () => {
    const response = await server().app.inject({ method: 'GET', url: '/api/messages' });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ code: 'token_missing' });
  });

  it('lists messages oldest first under the key messages, with no count and no Link header', async () => {
    const ids = await store(3);
    const { token } = await server().tokenFor('READONLY');
    const response = await list(token);
    expect(response.headers.link).toBeUndefined();
    const body = response.json();
    expect(Object.keys(body)).toEqual(['messages']);
    expect(body.messages).toEqual([
      {
        id: ids[0],
        from: 'sender0@example.com',
        subject: 'Subject 0',
        text: 'Body 0',
        receivedAt: '2026-03-01T09:00:01.000Z',
      },
      {
        id: ids[1],
        from: 'sender1@example.com',
        subject: 'Subject 1',
        receivedAt: '2026-03-01T09:00:02.000Z',
      },
      {
        id: ids[2],
        from: 'sender2@example.com',
        subject: 'Subject 2',
        text: 'Body 2',
        receivedAt: '2026-03-01T09:00:03.000Z',
      },
    ]);
  });

  it('pages with limit and offset, in a stable order even within one instant', async () => {
    const ids = await store(4);
    // Two more in the same millisecond: the id breaks the tie.
    const sameInstant = [];
    for (let index = 0; index < 2; index++) {
      const response = await server().app.inject({
        method: 'POST',
        url: '/api/inbox/webhook',
        headers: { 'x-service-webhook-secret': secret },
        payload: { from: 'same@example.com', subject: 'Same' },
      });
      sameInstant.push(response.json().id);
    }
    const { token } = await server().tokenFor('AGENT');
    const pages: string[][] = [];
    for (const offset of [0, 2, 4, 6]) {
      const response = await list(token, `?limit=2&offset=${offset}`);
      pages.push(response.json().messages.map((message: { id: string }) => message.id));
    }
    expect(pages).toEqual([ids.slice(0, 2), ids.slice(2, 4), sameInstant, []]);
  });

  it('defaults to 50 and allows 200', async () => {
    await server().database.query(
      `INSERT INTO messages (id, sender, subject, received_at)
       SELECT 'msg_' || lpad(n::text, 26, '0'), 'bulk@example.com', 'Bulk', now()
         FROM generate_series(1, 201) AS n`,
    );
    const { token } = await server().tokenFor('AGENT');
    expect((await list(token)).json().messages).toHaveLength(50);
    expect((await list(token, '?limit=200')).json().messages).toHaveLength(200);
    expect((await list(token, '?limit=200&offset=200')).json().messages).toHaveLength(1);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=201', 'limit'],
    ['limit=-1', 'limit'],
    ['limit=1.5', 'limit'],
    ['limit=1e2', 'limit'],
    ['limit=', 'limit'],
    ['limit=ten', 'limit'],
    ['limit=1&limit=2', 'limit'],
    ['offset=-1', 'offset'],
    ['offset=0.5', 'offset'],
    ['offset=x', 'offset'],
  ])('answers 400 validation_failed for %s', async (query, path) => {
    const { token } = await server().tokenFor('AGENT');
    const response = await list(token, `?${query}`);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      code: 'validation_failed',
      errors: [{ path, message: expect.stringContaining(path) }],
    });
  });
});
