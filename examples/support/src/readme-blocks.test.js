// Every code block marked runnable in a README of the repository is run here, so that an example
// readers copy cannot rot. A block opened with "```js runnable" must exit 0; one opened with
// "```js runnable webhook-receiver" must listen on PORT, accept a signed FollowUp delivery on
// /webhooks/followup, refuse forged and garbled ones with a 4xx, and stay up throughout. One
// opened with "```js runnable against-server" must exit 0 against the server `npm start` starts
// (`followup-server start --demo`), given the environment that the ```sh block just before it
// exports: FOLLOWUP_BASE_URL the server's address (as `npm start` prints it, the port aside:
// this one listens on a free port) and FOLLOWUP_TOKEN the demo token it printed.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { signPayload } from '@followup/webhooks';
import { describe, expect, it } from 'vitest';
import { scratchDataDir } from './processes.js';
import { startServer } from './server-process.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const readmes = [
  join(root, 'README.md'),
  ...['packages', 'examples'].flatMap((folder) =>
    readdirSync(join(root, folder))
      .map((name) => join(root, folder, name, 'README.md'))
      .filter((file) => existsSync(file)),
  ),
];

/**
 * The variables a ```sh block exports (`export NAME=value`, a comment after the value ignored).
 *
 * @param {string[]} lines the block's lines
 * @returns {Record<string, string>}
 */
function exportsOf(lines) {
  const exported = {};
  for (const line of lines) {
    const match = /^export ([A-Z_][A-Z0-9_]*)=(\S*)/.exec(line.trim());
    if (match) exported[match[1]] = match[2];
  }
  return exported;
}

/** @returns {Array<{ file: string, line: number, kind: string, code: string, setUp: Record<string, string> }>} */
function runnableBlocks(file) {
  const blocks = [];
  const lines = readFileSync(file, 'utf8').split('\n');
  /** What the last ```sh block before this point exports. */
  let setUp = {};
  for (let index = 0; index < lines.length; index++) {
    if (/^```(sh|bash)\s*$/.test(lines[index])) {
      const end = lines.indexOf('```', index + 1);
      setUp = exportsOf(lines.slice(index + 1, end));
      index = end;
      continue;
    }
    const open = /^```js runnable(?: (\S+))?\s*$/.exec(lines[index]);
    if (!open) continue;
    const end = lines.indexOf('```', index + 1);
    blocks.push({
      file,
      line: index + 1,
      kind: open[1] ?? 'script',
      code: lines.slice(index + 1, end).join('\n'),
      setUp,
    });
    index = end;
  }
  return blocks;
}

/**
 * Runs an against-server block to its end against `followup-server start --demo` (what `npm
 * start` runs) on a scratch data directory, with the environment its set-up exports, the values
 * the reader would paste in replaced by the server's.
 */
async function runAgainstServer(block) {
  expect(Object.keys(block.setUp), 'the sh block before it exports both').toEqual(
    expect.arrayContaining(['FOLLOWUP_BASE_URL', 'FOLLOWUP_TOKEN']),
  );
  const scratch = scratchDataDir('readme');
  const server = await startServer(scratch.storage);
  try {
    // The address npm start listens on, but for the port: this server took a free one.
    const shown = new URL(block.setUp.FOLLOWUP_BASE_URL);
    shown.port = new URL(server.url).port;
    expect(shown.origin).toBe(server.url);
    const running = start(block, { FOLLOWUP_BASE_URL: server.url, FOLLOWUP_TOKEN: server.token });
    try {
      expect(await running.exited, running.output()).toBe(0);
    } finally {
      await running.stop();
    }
  } finally {
    await server.stop();
    scratch.remove();
  }
}

async function freePort() {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Runs the block from its README's folder, so that its imports resolve as a reader's would. */
function start(block, env) {
  const file = join(dirname(block.file), `.readme-block-${block.line}.mjs`);
  writeFileSync(file, block.code);
  const child = spawn(process.execPath, [file], {
    cwd: dirname(block.file),
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const exited = once(child, 'exit').then(([code]) => code);
  return {
    child,
    exited,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(file, { force: true });
    },
  };
}

async function waitForPort(port, running) {
  for (let attempt = 0; attempt < 600; attempt++) {
    if (running.child.exitCode !== null) return false;
    const reachable = await fetch(`http://127.0.0.1:${port}/`, { method: 'HEAD' }).then(
      () => true,
      () => false,
    );
    if (reachable) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

const blocks = readmes.flatMap(runnableBlocks);

describe('runnable README blocks', () => {
  it('finds the blocks it is meant to run', () => {
    expect(blocks.map((block) => `${relative(root, block.file)} ${block.kind}`)).toEqual(
      expect.arrayContaining([
        'packages/webhooks/README.md webhook-receiver',
        'packages/sdk/README.md webhook-receiver',
        'packages/sdk/README.md against-server',
      ]),
    );
  });

  it.each(blocks.map((block) => [`${relative(root, block.file)}:${block.line}`, block]))(
    '%s',
    async (_name, block) => {
      if (block.kind === 'against-server') return runAgainstServer(block);
      const secret = 'whsec_readme_block_test';
      const port = await freePort();
      const running = start(block, { PORT: String(port), FOLLOWUP_WEBHOOK_SECRET: secret });
      try {
        if (block.kind === 'script') {
          expect(await running.exited, running.output()).toBe(0);
          return;
        }
        expect(block.kind).toBe('webhook-receiver');
        expect(await waitForPort(port, running), running.output()).toBe(true);
        const url = `http://127.0.0.1:${port}/webhooks/followup`;
        const body = JSON.stringify({
          id: 'dlv_readme',
          event: 'contact.created',
          createdAt: new Date().toISOString(),
          data: { id: 'con_readme', firstName: 'Ada', lastName: 'Lovelace', lifecycle: 'LEAD' },
        });
        const post = (signature, payload = body) =>
          fetch(url, {
            method: 'POST',
            body: payload,
            headers: {
              'content-type': 'application/json',
              ...(signature ? { 'x-service-signature': signature } : {}),
            },
          }).then((response) => response.status);
        expect(await post(signPayload(body, { secret: 'whsec_forged' }))).toBeGreaterThanOrEqual(
          400,
        );
        expect(await post(undefined)).toBeGreaterThanOrEqual(400);
        expect(await post('t=1,v1=zz', '{not json')).toBeGreaterThanOrEqual(400);
        const good = await post(signPayload(body, { secret }));
        expect(good, running.output()).toBeGreaterThanOrEqual(200);
        expect(good).toBeLessThan(300);
        // Still up after every bad request.
        expect(running.child.exitCode, running.output()).toBeNull();
      } finally {
        await running.stop();
      }
    },
  );
});
