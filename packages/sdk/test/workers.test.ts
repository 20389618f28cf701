import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { workspaceBinary } from '../../../scripts/testing/runtimes.mjs';

// The built SDK and the /web webhooks entry on Cloudflare Workers' runtime: workerd (its npm
// package carries the binary) serving test/worker-entry.js, bundled by esbuild as Wrangler
// would, with no Node compatibility flag.
const workerd = workspaceBinary('workerd');
const scratch = mkdtempSync(join(tmpdir(), 'followup-workerd-'));
let child: ChildProcess | undefined;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

afterAll(async () => {
  // The npm `workerd` command is a Node launcher that starts the real binary as its child: it
  // runs in a process group of its own, and the whole group is stopped.
  if (child?.pid !== undefined && child.exitCode === null) {
    const exited = once(child, 'exit');
    process.kill(-child.pid, 'SIGTERM');
    await exited;
  }
  rmSync(scratch, { recursive: true, force: true });
});

describe('the built SDK and webhooks on workerd (Cloudflare Workers)', () => {
  it('walks pages, maps errors, verifies a webhook signature and serves a webhook handler', async () => {
    await build({
      entryPoints: [new URL('./worker-entry.js', import.meta.url).pathname],
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      conditions: ['workerd', 'worker', 'browser'],
      mainFields: ['module', 'main'],
      outfile: join(scratch, 'worker.js'),
      logLevel: 'error',
    });
    const port = await freePort();
    writeFileSync(
      join(scratch, 'config.capnp'),
      `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .worker) ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [ (name = "worker", esModule = embed "worker.js") ],
  compatibilityDate = "2025-01-01",
);
`,
    );
    child = spawn(workerd, ['serve', join(scratch, 'config.capnp')], {
      stdio: 'pipe',
      detached: true,
    });
    let output = '';
    child.stderr?.on('data', (chunk) => {
      output += chunk;
    });
    let response: Response | undefined;
    // workerd listens within a second or two on a quiet machine; poll until it answers (or
    // exits), for up to about two minutes on a loaded one.
    for (let attempt = 0; attempt < 1200 && response === undefined; attempt++) {
      if (child.exitCode !== null) throw new Error(`workerd exited: ${output}`);
      response = await fetch(`http://127.0.0.1:${port}/`).catch(
        () => new Promise<undefined>((resolve) => setTimeout(resolve, 100)),
      );
    }
    expect(response?.status, output).toBe(200);
    expect(await response?.json()).toEqual({
      ids: ['con_a', 'con_b', 'con_c'],
      notFound: true,
      verified: { timestamp: 1_700_000_000, secretIndex: 0 },
      handlerStatuses: [204, 204, 401],
      handled: ['Ada'],
      hasProcess: false,
    });
  }, 180_000);
});
