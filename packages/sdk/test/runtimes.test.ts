import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runtimeCommand } from '../../../scripts/testing/runtimes.mjs';

// The built SDK under Deno and Bun (their npm packages carry the binaries): a paginated walk, a
// typed error and a redacted token, against a small API served here.
const run = promisify(execFile);

const contacts = ['a', 'b', 'c'].map((letter) => ({
  id: `con_${letter}`,
  firstName: 'Ada',
  lastName: 'Lovelace',
  lifecycle: 'LEAD',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
}));

let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname === '/api/contacts') {
      const offset = Number(url.searchParams.get('offset') ?? 0);
      const limit = Number(url.searchParams.get('limit') ?? 50);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ contacts: contacts.slice(offset, offset + limit) }));
      return;
    }
    response.writeHead(404, { 'content-type': 'application/problem+json' });
    response.end(
      JSON.stringify({ type: 'about:blank', title: 'Not Found', status: 404, code: 'not_found' }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise((resolve) => server.close(resolve)));

describe.each(['deno', 'bun'] as const)('the built SDK under %s', (name) => {
  it('walks pages, maps errors to classes, keeps the token secret and serves a webhook handler', async () => {
    const { command, args, env } = runtimeCommand(name, 'test/runtime-check.mjs', {
      args: [baseUrl],
      loopback: true,
    });
    const { stdout } = await run(command, args, {
      cwd: new URL('..', import.meta.url).pathname,
      env,
      timeout: 60_000,
    });
    expect(JSON.parse(stdout.trim().split('\n').at(-1) as string)).toEqual({
      ids: ['con_a', 'con_b', 'con_c'],
      notFound: true,
      code: 'not_found',
      inspect: false,
      handlerStatuses: [204, 204, 401],
      handled: ['Ada'],
    });
  }, 90_000);
});
