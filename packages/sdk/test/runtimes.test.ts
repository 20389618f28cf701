import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The built SDK under Deno and Bun (their npm packages carry the binaries): a paginated walk, a
// typed error and a redacted token, against a small API served here.
const run = promisify(execFile);
const bin = (name: string) =>
  new URL(`../../../node_modules/.bin/${name}`, import.meta.url).pathname;

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

describe.each([
  {
    name: 'deno',
    args: (url: string) => [
      'run',
      '--quiet',
      '--no-prompt',
      '--allow-net=127.0.0.1',
      'test/runtime-check.mjs',
      url,
    ],
  },
  { name: 'bun', args: (url: string) => ['test/runtime-check.mjs', url] },
])('the built SDK under $name', ({ name, args }) => {
  it('walks pages, maps errors to classes, keeps the token secret and serves a webhook handler', async () => {
    const { stdout } = await run(bin(name), args(baseUrl), {
      cwd: new URL('..', import.meta.url).pathname,
      env: { ...process.env, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1' },
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
