// A small, real HTTP server that follows the FollowUp API contract (docs/api-contract.md), for the
// SDK's integration tests: bearer tokens, limit/offset and cursor pages, problem+json errors,
// X-Request-Id, idempotency keys and the inbox secret. Tests can also script the next answers of
// a route (a status, a hang, a dropped connection) to exercise retries, timeouts and aborts.
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import {
  INBOX_SECRET_HEADER,
  LIST_LIMITS,
  PROBLEM_CODES,
  type ProblemCode,
  problemType,
  TOKEN_PREFIX,
} from '../src/index.js';

export const SERVICE_ACCOUNT_ID = 'sa_01JTESTACCOUNT';
export const TOKEN_SECRET = 'S3cr3tS3cr3tS3cr3tS3cr3tS3cr3tS3cr3tS3cr3t0';
export const TOKEN = `${TOKEN_PREFIX}${SERVICE_ACCOUNT_ID}.${TOKEN_SECRET}`;
export const INBOX_SECRET = 'inbox-secret-value-1234';

const EPOCH = Date.UTC(2026, 0, 1);

/** A scripted answer. */
export interface ScriptedResponse {
  status?: number;
  headers?: Record<string, string>;
  /** A JSON value, or a string sent as is. */
  body?: unknown;
  /** Never answer: keep the connection open until the client goes away. */
  hang?: boolean;
  /** Drop the connection without an answer (a network error for the client). */
  destroy?: boolean;
}

interface Script {
  method: string;
  path: string;
  when: ((query: Record<string, string>) => boolean) | undefined;
  remaining: number;
  respond: ScriptedResponse;
}

/** One request the fixture saw. */
export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  /** Every value of each parameter given more than once (`query` holds the last). */
  repeated: Record<string, string[]>;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

export interface FixtureOptions {
  contacts?: number;
  deals?: number;
  messages?: number;
  auditEntries?: number;
  /**
   * Contacts and deals lists answer `nextCursor` and take `cursor` (the id of the last row,
   * base64url) and `lifecycle` / `stage` filters, as the keyset lists of the service do. Off:
   * a service older than them.
   */
  keyset?: boolean;
}

type Row = Record<string, unknown> & { id: string; createdAt: string };

function iso(offsetMs: number): string {
  return new Date(EPOCH + offsetMs).toISOString();
}

export function makeContact(index: number): Row {
  const at = iso(index * 1000);
  return {
    id: `con_${String(index).padStart(8, '0')}`,
    firstName: `First${index}`,
    lastName: `Last${index}`,
    lifecycle: ['LEAD', 'PROSPECT', 'PATIENT', 'INACTIVE'][index % 4],
    email: `contact${index}@example.com`,
    createdAt: at,
    updatedAt: at,
  };
}

function makeDeal(index: number): Row {
  const at = iso(index * 1000);
  return {
    id: `deal_${String(index).padStart(8, '0')}`,
    contactId: `con_${String(index).padStart(8, '0')}`,
    title: `Deal ${index}`,
    stage: 'OPEN',
    amountCents: index * 100,
    currency: 'USD',
    createdAt: at,
    updatedAt: at,
  };
}

function makeMessage(index: number): Row {
  return {
    id: `msg_${String(index).padStart(8, '0')}`,
    from: `sender${index}@example.com`,
    subject: `Subject ${index}`,
    receivedAt: iso(index * 1000),
    createdAt: iso(index * 1000),
  };
}

function makeAuditEntry(index: number): Row {
  return {
    id: `aud_${String(index).padStart(8, '0')}`,
    occurredAt: iso(index * 1000),
    createdAt: iso(index * 1000),
    action: 'token.issued',
    actor: { type: 'operator' },
    target: { type: 'token', id: `tok_${index}` },
    metadata: {},
  };
}

// The status, type and title of each code come from the SDK's wire contract, as the server's do.
function problem(
  reply: FastifyReply,
  code: ProblemCode,
  detail?: string,
  extra?: Record<string, unknown>,
) {
  const { status } = PROBLEM_CODES[code];
  return reply
    .code(status)
    .type('application/problem+json')
    .send({
      type: problemType(code),
      title: STATUS_CODES[status],
      status,
      ...(detail === undefined ? {} : { detail }),
      code,
      requestId: reply.getHeader('x-request-id'),
      ...extra,
    });
}

export interface Fixture {
  readonly baseUrl: string;
  readonly requests: RecordedRequest[];
  readonly collections: Record<string, Row[]>;
  /** Answer the next `times` matching requests with `respond` instead of the normal route. */
  script(
    method: string,
    path: string,
    respond: ScriptedResponse,
    options?: { times?: number; when?: (query: Record<string, string>) => boolean },
  ): void;
  /** Requests whose path is `path` (any method). */
  count(path: string): number;
  /** How many scripted answers are still waiting for a request. */
  pendingScripts(): number;
  close(): Promise<void>;
}

export async function startFixture(options: FixtureOptions = {}): Promise<Fixture> {
  const app = Fastify({ forceCloseConnections: true });
  const scripts: Script[] = [];
  const requests: RecordedRequest[] = [];
  const idempotency = new Map<string, { body: string; status: number; response: unknown }>();
  const collections: Record<string, Row[]> = {
    contacts: Array.from({ length: options.contacts ?? 0 }, (_, index) => makeContact(index)),
    deals: Array.from({ length: options.deals ?? 0 }, (_, index) => makeDeal(index)),
    sequences: [],
    campaigns: [],
    users: [],
    messages: Array.from({ length: options.messages ?? 0 }, (_, index) => makeMessage(index)),
    audit: Array.from({ length: options.auditEntries ?? 0 }, (_, index) => makeAuditEntry(index)),
  };
  let created = 0;

  app.addHook('onRequest', async (_request, reply) => {
    reply.header('x-request-id', `req_${randomUUID()}`);
  });

  app.addHook('preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
    const url = new URL(request.url, 'http://fixture');
    const query = Object.fromEntries(url.searchParams);
    const repeated = [...new Set(url.searchParams.keys())].filter(
      (key) => url.searchParams.getAll(key).length > 1,
    );
    requests.push({
      repeated: Object.fromEntries(repeated.map((key) => [key, url.searchParams.getAll(key)])),
      method: request.method,
      path: url.pathname,
      query,
      headers: { ...request.headers },
      body: request.body,
    });
    const index = scripts.findIndex(
      (script) =>
        script.method === request.method &&
        script.path === url.pathname &&
        (script.when === undefined || script.when(query)),
    );
    if (index >= 0) {
      const script = scripts[index] as Script;
      script.remaining -= 1;
      if (script.remaining <= 0) scripts.splice(index, 1);
      const respond = script.respond;
      if (respond.destroy === true) {
        reply.hijack();
        request.raw.socket.destroy();
        return reply;
      }
      if (respond.hang === true) {
        reply.hijack();
        return reply;
      }
      reply.code(respond.status ?? 200);
      for (const [name, value] of Object.entries(respond.headers ?? {})) reply.header(name, value);
      if (typeof respond.body === 'string') return reply.send(respond.body);
      if (respond.body === undefined) return reply.send();
      if (reply.getHeader('content-type') === undefined) {
        reply.type(
          (respond.status ?? 200) >= 400 ? 'application/problem+json' : 'application/json',
        );
      }
      return reply.send(JSON.stringify(respond.body));
    }
    if (url.pathname === '/api/inbox/webhook') {
      if (request.headers[INBOX_SECRET_HEADER] !== INBOX_SECRET) {
        return problem(reply, 'webhook_secret_invalid');
      }
      return;
    }
    const authorization = request.headers.authorization;
    if (authorization === undefined) {
      return problem(reply, 'token_missing', 'No bearer token was sent.');
    }
    if (authorization !== `Bearer ${TOKEN}`) {
      return problem(reply, 'token_invalid', 'The token is not valid.');
    }
  });

  function parseList(request: FastifyRequest, reply: FastifyReply) {
    const query = request.query as Record<string, string | undefined>;
    const limit = query.limit === undefined ? LIST_LIMITS.defaultLimit : Number(query.limit);
    const offset = query.offset === undefined ? 0 : Number(query.offset);
    if (!Number.isInteger(limit) || limit < 1 || limit > LIST_LIMITS.maxLimit) {
      problem(reply, 'validation_failed', `limit must be 1..${LIST_LIMITS.maxLimit}`, {
        errors: [
          { path: 'limit', message: `must be an integer from 1 to ${LIST_LIMITS.maxLimit}` },
        ],
      });
      return undefined;
    }
    if (!Number.isInteger(offset) || offset < 0) {
      problem(reply, 'validation_failed', 'offset must be >= 0', {
        errors: [{ path: 'offset', message: 'must be a non-negative integer' }],
      });
      return undefined;
    }
    return { limit, offset, cursor: query.cursor };
  }

  function idempotent(
    request: FastifyRequest,
    reply: FastifyReply,
    create: () => { status: number; body: unknown },
  ) {
    const key = request.headers['idempotency-key'];
    const bodyText = JSON.stringify(request.body ?? null);
    if (typeof key === 'string') {
      const previous = idempotency.get(key);
      if (previous !== undefined) {
        if (previous.body !== bodyText) {
          return problem(reply, 'idempotency_conflict');
        }
        return reply.code(previous.status).send(previous.response);
      }
    }
    const result = create();
    if (typeof key === 'string') {
      idempotency.set(key, { body: bodyText, status: result.status, response: result.body });
    }
    return reply.code(result.status).send(result.body);
  }

  for (const name of ['contacts', 'deals', 'sequences', 'campaigns', 'users'] as const) {
    const rows = () => collections[name] as Row[];
    app.get(`/api/${name}`, async (request, reply) => {
      const list = parseList(request, reply);
      if (list === undefined) return reply;
      if (!options.keyset || (name !== 'contacts' && name !== 'deals')) {
        return { [name]: rows().slice(list.offset, list.offset + list.limit) };
      }
      const query = request.query as Record<string, string | string[] | undefined>;
      const field = name === 'contacts' ? 'lifecycle' : 'stage';
      const wanted = query[field] === undefined ? undefined : [query[field]].flat();
      const matching = wanted
        ? rows().filter((row) => wanted.includes(row[field] as string))
        : rows();
      let start = list.offset;
      if (list.cursor !== undefined) {
        if (query.offset !== undefined) {
          return problem(reply, 'validation_failed', 'cursor with offset');
        }
        const lastId = Buffer.from(list.cursor, 'base64url').toString('utf8');
        start = matching.findIndex((row) => row.id === lastId) + 1;
        if (start === 0) return problem(reply, 'validation_failed', 'bad cursor');
      }
      const page = matching.slice(start, start + list.limit);
      const last = page.at(-1);
      const more = start + list.limit < matching.length;
      return {
        [name]: page,
        nextCursor: more && last !== undefined ? Buffer.from(last.id).toString('base64url') : null,
      };
    });
    if (name === 'contacts' || name === 'deals') {
      app.get(`/api/${name}/count`, async () => ({ count: rows().length }));
    }
    app.get(`/api/${name}/:id`, async (request, reply) => {
      const { id } = request.params as { id: string };
      const row = rows().find((candidate) => candidate.id === id);
      if (row === undefined) return problem(reply, 'not_found');
      return row;
    });
    app.post(`/api/${name}`, async (request, reply) => {
      const body = request.body as Record<string, unknown> | undefined;
      if (typeof body !== 'object' || body === null) {
        return problem(reply, 'validation_failed', 'A JSON body is needed.', {
          errors: [{ path: '', message: 'Required' }],
        });
      }
      return idempotent(request, reply, () => {
        created += 1;
        const at = new Date(EPOCH + 10_000_000 + created).toISOString();
        const defaults: Record<string, unknown> =
          name === 'contacts'
            ? { lifecycle: 'LEAD' }
            : name === 'deals'
              ? { stage: 'OPEN' }
              : name === 'sequences'
                ? { status: 'DRAFT', steps: [] }
                : name === 'campaigns'
                  ? { status: 'DRAFT' }
                  : {};
        const row: Row = {
          ...defaults,
          ...body,
          id: `${name.slice(0, 3)}_new${created}`,
          createdAt: at,
          ...(name === 'users' ? {} : { updatedAt: at }),
        };
        rows().push(row);
        return { status: 201, body: row };
      });
    });
    app.patch(`/api/${name}/:id`, async (request, reply) => {
      const { id } = request.params as { id: string };
      const row = rows().find((candidate) => candidate.id === id);
      if (row === undefined) return problem(reply, 'not_found');
      for (const [key, value] of Object.entries(request.body as Record<string, unknown>)) {
        if (value === null) delete row[key];
        else row[key] = value;
      }
      return row;
    });
    app.delete(`/api/${name}/:id`, async (request, reply) => {
      const { id } = request.params as { id: string };
      const index = rows().findIndex((candidate) => candidate.id === id);
      if (index < 0) return problem(reply, 'not_found');
      rows().splice(index, 1);
      return reply.code(204).send();
    });
  }

  app.get('/api/me', async () => ({
    type: 'service_account',
    id: SERVICE_ACCOUNT_ID,
    name: 'fixture',
    role: 'ADMIN',
    capabilities: ['contacts.read', 'contacts.write'],
    token: { id: 'tok_01JTESTTOKEN', label: 'tests', expiresAt: null },
  }));

  app.get('/api/messages', async (request, reply) => {
    const list = parseList(request, reply);
    if (list === undefined) return reply;
    return {
      messages: (collections.messages as Row[]).slice(list.offset, list.offset + list.limit),
    };
  });

  // Cursor: the id of the last entry of the previous page, base64url-encoded (opaque to clients).
  app.get('/api/audit', async (request, reply) => {
    const list = parseList(request, reply);
    if (list === undefined) return reply;
    const entries = collections.audit as Row[];
    let start = 0;
    if (list.cursor !== undefined) {
      const lastId = Buffer.from(list.cursor, 'base64url').toString('utf8');
      start = entries.findIndex((entry) => entry.id === lastId) + 1;
      if (start === 0) return problem(reply, 'validation_failed', 'bad cursor');
    }
    const page = entries.slice(start, start + list.limit);
    const last = page.at(-1);
    const more = start + list.limit < entries.length;
    return {
      entries: page,
      nextCursor: more && last !== undefined ? Buffer.from(last.id).toString('base64url') : null,
    };
  });

  app.post('/api/inbox/webhook', async (request, reply) => {
    const body = request.body as Record<string, unknown> | undefined;
    if (typeof body?.from !== 'string' || typeof body?.subject !== 'string') {
      return problem(reply, 'validation_failed', 'from and subject are required');
    }
    created += 1;
    const message: Row = {
      id: `msg_new${created}`,
      from: body.from,
      subject: body.subject,
      ...(typeof body.text === 'string' ? { text: body.text } : {}),
      receivedAt: new Date(EPOCH).toISOString(),
      createdAt: new Date(EPOCH).toISOString(),
    };
    (collections.messages as Row[]).push(message);
    return reply.code(201).send({ id: message.id });
  });

  app.setNotFoundHandler((_request, reply) => problem(reply, 'not_found'));

  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    baseUrl: address,
    requests,
    collections,
    script(method, path, respond, scriptOptions = {}) {
      scripts.push({
        method,
        path,
        respond,
        when: scriptOptions.when,
        remaining: scriptOptions.times ?? 1,
      });
    },
    pendingScripts() {
      return scripts.reduce((total, script) => total + script.remaining, 0);
    },
    count(path) {
      return requests.filter((request) => request.path === path).length;
    },
    close: () => app.close(),
  };
}
