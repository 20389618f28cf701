import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { isProblemCode, PROBLEM_CODES, type ProblemCode, WEBHOOK_EVENT_KINDS } from '@followup/sdk';
import type { RouteOptions } from 'fastify';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/support/server.js';
import { operationIdOf } from './openapi-document.js';
import { OPENAPI_TAGS } from './openapi-tags.js';

// biome-ignore lint/suspicious/noExplicitAny: a parsed JSON document, walked by the tests
type Json = Record<string, any>;
const require = createRequire(import.meta.url);

describe('the published OpenAPI document', () => {
  const server = useTestServer();
  let document: Json;
  let scratch: string;
  beforeAll(async () => {
    const response = await server().app.inject({
      method: 'GET',
      url: '/openapi.json',
      headers: { host: 'followup.internal:3000' },
    });
    document = response.json();
    scratch = mkdtempSync(join(tmpdir(), 'followup-openapi-'));
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  const operations = () =>
    Object.entries(document.paths as Record<string, Record<string, Json>>).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => ({ path, method, operation })),
    );

  it('names no server from the request: without a public URL, the origin it was fetched from', () => {
    expect(document.servers).toEqual([{ url: '/' }]);
  });

  it('gives every operation a unique operationId', () => {
    const ids = operations().map(({ operation }) => operation.operationId);
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z0-9]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(document.paths['/api/contacts'].get.operationId).toBe('listContacts');
    expect(document.paths['/api/contacts/{id}'].patch.operationId).toBe('updateContact');
    expect(document.paths['/api/deals/count'].get.operationId).toBe('countDeals');
  });

  it('files every operation under one declared tag, so that /docs shows no "default" group', () => {
    const declared = (document.tags as Json[]).map((tag) => tag.name);
    expect(declared).toEqual(OPENAPI_TAGS.map((tag) => tag.name));
    expect((document.tags as Json[]).every((tag) => typeof tag.description === 'string')).toBe(
      true,
    );
    const untagged = operations()
      .filter(
        ({ operation }) => operation.tags?.length !== 1 || !declared.includes(operation.tags[0]),
      )
      .map(({ method, path, operation }) => `${method.toUpperCase()} ${path} ${operation.tags}`);
    expect(untagged).toEqual([]);
    const used = new Set(operations().map(({ operation }) => operation.tags[0]));
    expect(declared.filter((name) => !used.has(name))).toEqual([]);
    expect(document.paths['/api/deliveries'].get.tags).toEqual(['Deliveries']);
    expect(document.paths['/api/webhook-endpoints'].post.tags).toEqual(['Webhook endpoints']);
    expect(document.paths['/api/ehr/webhooks/{ehr}'].post.tags).toEqual(['Inbound webhooks']);
    expect(document.paths['/healthz'].get.tags).toEqual(['Health']);
  });

  it('documents limit and offset as integers with their defaults and maxima', () => {
    for (const path of ['/api/contacts', '/api/deals', '/api/messages', '/api/users']) {
      const parameters = document.paths[path].get.parameters as Json[];
      expect(parameters.find((parameter) => parameter.name === 'limit')?.schema).toEqual({
        type: 'integer',
        minimum: 1,
        maximum: 200,
        default: 50,
      });
      expect(parameters.find((parameter) => parameter.name === 'offset')?.schema).toMatchObject({
        type: 'integer',
        minimum: 0,
        default: 0,
      });
    }
  });

  it('answers every error as problem+json naming the codes of that route', () => {
    for (const { operation } of operations()) {
      for (const [status, response] of Object.entries(operation.responses as Json)) {
        if (Number(status) < 400) continue;
        expect(Object.keys(response.content)).toEqual(['application/problem+json']);
        expect(response.content['application/problem+json'].schema).toEqual({
          $ref: '#/components/schemas/Problem',
        });
      }
    }
    const ehr = document.paths['/api/ehr/webhooks/{ehr}'].post.responses;
    expect(ehr['401'].description).toBe('Problem codes: signature_invalid');
    // Without INBOX_WEBHOOK_SECRET the inbox is open: it has no 401 to answer.
    const inbox = document.paths['/api/inbox/webhook'].post.responses;
    expect(inbox['401']).toBeUndefined();
    const contacts = document.paths['/api/contacts'].get.responses;
    expect(contacts['401'].description).toBe(
      'Problem codes: token_missing, token_malformed, token_invalid, token_expired, token_revoked',
    );
    expect(document.components.schemas.Problem.required).toEqual(
      expect.arrayContaining(['type', 'status', 'code', 'requestId']),
    );
  });

  it('has a security scheme for the bearer token, the inbox secret and each EHR signature', () => {
    const schemes = document.components.securitySchemes;
    expect(schemes.inboxSecret).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'X-Service-Webhook-Secret',
    });
    expect(schemes.ehrSignature_athenahealth).toMatchObject({
      in: 'header',
      name: 'x-hub-signature',
    });
    expect(document.paths['/api/inbox/webhook'].post.security).toEqual([{ inboxSecret: [] }]);
    expect(document.paths['/api/ehr/webhooks/{ehr}'].post.security).toContainEqual({
      ehrSignature_akute: [],
    });
    expect(document.paths['/healthz'].get.security).toEqual([]);
    for (const { operation } of operations()) expect(operation.security).toBeDefined();
  });

  it('passes @redocly/cli lint with its recommended rules: 0 errors, 0 warnings', async () => {
    const file = join(scratch, 'openapi.json');
    writeFileSync(file, JSON.stringify(document));
    const cli = join(require.resolve('@redocly/cli/package.json'), '..', 'bin', 'cli.js');
    const run = await promisify(execFile)(process.execPath, [cli, 'lint', file, '--format=json'], {
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      maxBuffer: 16 * 1024 * 1024,
    }).catch((error) => error);
    const report = JSON.parse(run.stdout);
    const problems = report.problems.map(
      (problem: Json) =>
        `${problem.ruleId} at ${problem.location?.[0]?.pointer}: ${problem.message}`,
    );
    expect(problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });

  it('generates types with openapi-typescript that type-check a consumer passing limit as a number', async () => {
    const types = astToString(await openapiTS(document as never));
    writeFileSync(join(scratch, 'schema.d.ts'), types);
    const consumer = join(scratch, 'consumer.ts');
    writeFileSync(
      consumer,
      `import type { paths } from './schema.js';
type ListQuery = NonNullable<paths['/api/contacts']['get']['parameters']['query']>;
export const query: ListQuery = { limit: 50, offset: 100 };
type Contact = paths['/api/contacts']['get']['responses'][200]['content']['application/json']['contacts'][number];
export const name = (contact: Contact): string => \`\${contact.firstName} \${contact.lastName}\`;
`,
    );
    const wrong = join(scratch, 'wrong.ts');
    writeFileSync(
      wrong,
      `import type { paths } from './schema.js';
type ListQuery = NonNullable<paths['/api/contacts']['get']['parameters']['query']>;
export const query: ListQuery = { limit: '50' };
`,
    );
    const check = (file: string) => {
      const program = ts.createProgram([file], {
        strict: true,
        noEmit: true,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        target: ts.ScriptTarget.ES2022,
        skipLibCheck: true,
      });
      return ts
        .getPreEmitDiagnostics(program)
        .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    };
    expect(check(consumer)).toEqual([]);
    // The check can fail: limit as a string is refused.
    expect(check(wrong).join('\n')).toContain("Type 'string' is not assignable to type 'number'");
  });
});

describe('operationIdOf', () => {
  it('names collection and item operations and falls back to method and path', () => {
    expect(operationIdOf('GET', '/api/event-types')).toBe('listEventTypes');
    expect(operationIdOf('POST', '/api/contacts')).toBe('createContact');
    expect(operationIdOf('DELETE', '/api/deliveries/{id}')).toBe('deleteDelivery');
    expect(operationIdOf('POST', '/api/contacts/batch')).toBe('upsertContacts');
    expect(operationIdOf('GET', '/api/me')).toBe('getMe');
    expect(operationIdOf('GET', '/api/ehr/webhooks/{ehr}')).toBe('getApiEhrWebhooksEhr');
  });
});

describe('the problem codes of the published OpenAPI document', () => {
  const server = useTestServer();

  it('are codes of the wire contract (the SDK’s PROBLEM_CODES), each under its own status', async () => {
    const response = await server().app.inject({ method: 'GET', url: '/openapi.json' });
    const document = response.json() as Json;
    let named = 0;
    for (const item of Object.values(document.paths as Record<string, Json>)) {
      for (const operation of Object.values(item)) {
        for (const [status, answer] of Object.entries((operation.responses ?? {}) as Json)) {
          const listed = /^Problem codes: (.+)$/.exec(String(answer.description))?.[1];
          for (const code of listed?.split(', ') ?? []) {
            named += 1;
            expect(isProblemCode(code), code).toBe(true);
            expect(PROBLEM_CODES[code as ProblemCode].status, code).toBe(Number(status));
          }
        }
      }
    }
    expect(named).toBeGreaterThan(100);
  });

  it('name every published operation with a verb and a noun, each name once', async () => {
    const response = await server().app.inject({ method: 'GET', url: '/openapi.json' });
    const document = response.json() as Json;
    const ids = Object.values(document.paths as Record<string, Json>).flatMap((item) =>
      Object.values(item).map((operation) => String(operation.operationId)),
    );
    expect(ids.length).toBeGreaterThan(30);
    expect(new Set(ids).size).toBe(ids.length);
    // The `<method><Path>` fallback (postApiUsersInvitations) reads badly in a generated client.
    expect(ids.filter((id) => /^(get|post|put|patch|delete)Api/.test(id))).toEqual([]);
  });
});

describe('the problem codes each operation lists', () => {
  /** The route definitions, as Fastify registers them. */
  const routes: RouteOptions[] = [];
  const server = useTestServer({
    inboxWebhookSecret: 'inbox-secret',
    configure: (app) => {
      app.addHook('onRoute', (route) => {
        routes.push(route);
      });
    },
  });
  let document: Json;
  const tokens = new Map<string, string>();
  beforeAll(async () => {
    document = (await server().app.inject({ method: 'GET', url: '/openapi.json' })).json();
  });

  const tokenCodes = [
    'token_missing',
    'token_malformed',
    'token_invalid',
    'token_expired',
    'token_revoked',
  ];

  /** Each operation with the codes it lists, by status, and the route that defines it. */
  function operations() {
    return Object.entries(document.paths as Record<string, Json>).flatMap(([path, item]) =>
      Object.entries(item as Record<string, Json>).map(([method, operation]) => {
        const listed = new Map<number, string[]>();
        for (const [status, answer] of Object.entries(operation.responses as Json)) {
          const codes = /^Problem codes: (.+)$/.exec(String((answer as Json).description))?.[1];
          if (Number(status) >= 400) listed.set(Number(status), codes?.split(', ') ?? []);
        }
        const url = path.replace(/\{([^}]+)\}/g, ':$1');
        const route = routes.find(
          (candidate) =>
            candidate.url === url &&
            [candidate.method].flat().some((each) => each.toLowerCase() === method),
        );
        if (!route) throw new Error(`No route defines ${method} ${path}`);
        const all = [...listed.values()].flat();
        return { path, method: method.toUpperCase(), listed, all, route };
      }),
    );
  }

  const hooksOf = (route: RouteOptions) =>
    [route.onRequest, route.preValidation, route.preHandler].flat().filter(Boolean) as {
      name?: string;
    }[];

  it('list, under each status, codes of that status only, every status with its codes', () => {
    for (const { path, method, listed } of operations()) {
      for (const [status, codes] of listed) {
        expect(codes.length, `${method} ${path} ${status}`).toBeGreaterThan(0);
        for (const code of codes) {
          expect(PROBLEM_CODES[code as ProblemCode]?.status, `${method} ${path} ${code}`).toBe(
            status,
          );
        }
      }
    }
  });

  it('follow from each route’s definition: its authentication, schemas, method and idempotency', () => {
    const safe = new Set(['GET', 'HEAD']);
    for (const { path, method, listed, all, route } of operations()) {
      const where = `${method} ${path}`;
      const bearer = hooksOf(route).some((hook) => hook.name === 'requireCapability');
      // A token-only concern on a route that takes no token, or CSRF on a safe method: never.
      if (bearer) expect(listed.get(401), where).toEqual(tokenCodes);
      else
        expect(
          all.filter((code) => tokenCodes.includes(code)),
          where,
        ).toEqual([]);
      if (!bearer || safe.has(method)) expect(all, where).not.toContain('csrf_invalid');
      // Nothing about a body on a method without one.
      if (safe.has(method)) {
        for (const code of ['invalid_json', 'unsupported_media_type', 'payload_too_large']) {
          expect(all, where).not.toContain(code);
        }
      }
      const schema = (route.schema ?? {}) as Json;
      const validated = Boolean(schema.body || schema.querystring || schema.params);
      expect(all.includes('validation_failed'), where).toBe(validated);
      const idempotent = method === 'POST' && route.config?.idempotent === true;
      expect(all.includes('idempotency_conflict'), where).toBe(idempotent);
      expect(all.includes('idempotency_in_progress'), where).toBe(idempotent);
    }
  });

  it('list each webhook’s own 401 through the shared Problem schema', () => {
    const ehr = document.paths['/api/ehr/webhooks/{ehr}'].post.responses;
    expect(ehr['401']).toEqual({
      description: 'Problem codes: signature_invalid',
      content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
    });
    expect(ehr['404'].description).toBe('Problem codes: unknown_vendor');
    expect(ehr['501'].description).toBe('Problem codes: vendor_not_supported');
    // Every body is taken as the signed bytes: it is never parsed as JSON.
    expect(ehr['400'].description).not.toContain('invalid_json');
    expect(ehr['415']).toBeUndefined();
    const inbox = document.paths['/api/inbox/webhook'].post.responses;
    expect(inbox['401'].description).toBe('Problem codes: webhook_secret_invalid');
  });

  it('are answered: each authentication, permission and body code listed can be provoked', async () => {
    const { app } = server();
    for (const role of ['ADMIN', 'MANAGER', 'AGENT', 'READONLY'] as const) {
      tokens.set(role, (await server().tokenFor(role)).token);
    }
    const send = async (
      method: string,
      url: string,
      options: { role?: string; type?: string; body?: string } = {},
    ) => {
      const response = await app.inject({
        method: method as 'POST',
        url,
        headers: {
          ...(options.role ? { authorization: `Bearer ${tokens.get(options.role)}` } : {}),
          ...(options.type ? { 'content-type': options.type } : {}),
          // The inbox webhook's secret (other routes ignore it): past it, the body is read.
          'x-service-webhook-secret': 'inbox-secret',
        },
        ...(options.body === undefined ? {} : { payload: options.body }),
      });
      return { status: response.statusCode, code: response.json().code as string | undefined };
    };
    let provoked = 0;
    for (const { path, method, all } of operations()) {
      const url = path.replace(/\{[^}]+\}/g, 'x_1');
      const where = `${method} ${path}`;
      if (all.includes('token_missing')) {
        expect(await send(method, url), where).toEqual({ status: 401, code: 'token_missing' });
        provoked += 1;
      }
      if (all.includes('forbidden')) {
        // Some role lacks what the route needs (for the event feed: some kind is hidden from it).
        const urls =
          path === '/api/events' ? WEBHOOK_EVENT_KINDS.map((kind) => `${url}?kind=${kind}`) : [url];
        const answers = [];
        for (const role of ['MANAGER', 'AGENT', 'READONLY']) {
          for (const each of urls) answers.push((await send(method, each, { role })).code);
        }
        expect(answers, where).toContain('forbidden');
        provoked += 1;
      }
      if (all.includes('invalid_json')) {
        const answer = await send(method, url, {
          role: 'ADMIN',
          type: 'application/json',
          body: '{',
        });
        expect(answer, where).toEqual({ status: 400, code: 'invalid_json' });
        provoked += 1;
      }
      if (all.includes('unsupported_media_type')) {
        const answer = await send(method, url, { role: 'ADMIN', type: 'text/plain', body: 'x' });
        expect(answer, where).toEqual({ status: 415, code: 'unsupported_media_type' });
        provoked += 1;
      }
    }
    expect(provoked).toBeGreaterThan(60);
  });
});
