import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { isProblemCode, PROBLEM_CODES, type ProblemCode } from '@followup/sdk';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/support/server.js';
import { operationIdOf } from './openapi-document.js';

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

  it('names the server it was fetched from', () => {
    expect(document.servers).toEqual([{ url: 'http://followup.internal:3000' }]);
  });

  it('gives every operation a unique operationId', () => {
    const ids = operations().map(({ operation }) => operation.operationId);
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z0-9]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(document.paths['/api/contacts'].get.operationId).toBe('listContacts');
    expect(document.paths['/api/contacts/{id}'].patch.operationId).toBe('updateContact');
    expect(document.paths['/api/deals/count'].get.operationId).toBe('countDeals');
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
    const inbox = document.paths['/api/inbox/webhook'].post.responses;
    expect(inbox['401'].description).toBe('Problem codes: webhook_secret_invalid');
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
