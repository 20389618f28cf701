// Every code block marked runnable in a README of the repository is run here, so that an example
// readers copy cannot rot. A block opened with "```js runnable" must exit 0; one opened with
// "```js runnable webhook-receiver" must listen on PORT, accept a signed FollowUp delivery on
// /webhooks/followup, refuse forged and garbled ones with a 4xx, and stay up throughout.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { signPayload } from '@followup/webhooks';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const readmes = [
  join(root, 'README.md'),
  ...['packages', 'examples'].flatMap((folder) =>
    readdirSync(join(root, folder))
      .map((name) => join(root, folder, name, 'README.md'))
      .filter((file) => existsSync(file)),
  ),
];

/** @returns {Array<{ file: string, line: number, kind: string, code: string }>} */
function runnableBlocks(file) {
  const blocks = [];
  const lines = readFileSync(file, 'utf8').split('\n');
  for (let index = 0; index < lines.length; index++) {
    const open = /^```js runnable(?: (\S+))?\s*$/.exec(lines[index]);
    if (!open) continue;
    const end = lines.indexOf('```', index + 1);
    blocks.push({
      file,
      line: index + 1,
      kind: open[1] ?? 'script',
      code: lines.slice(index + 1, end).join('\n'),
    });
    index = end;
  }
  return blocks;
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
      ]),
    );
  });

  it.each(blocks.map((block) => [`${relative(root, block.file)}:${block.line}`, block]))(
    '%s',
    async (_name, block) => {
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
