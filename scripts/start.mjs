#!/usr/bin/env node
// `npm start`: the reference server with demo data (`followup-server start --demo`, any further
// arguments passed on: `npm start -- --port 4000`). It builds the server and the packages it
// depends on first, through turbo, whose cache makes that a check when nothing changed: a build
// whose sources, package.json, tsconfig and tsup config are those of the last build is reused
// (restored from .turbo/cache, well under a second) instead of run again. Then the CLI runs in
// this same process, so the "ready … s after the process started" it prints counts the build
// check too: the time from the command to a server that answers. It runs through the same file
// as `npx followup-server` (the package's `bin`), which `npm ci` links before anything is built.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const SERVER = '@followup/server';

/**
 * What a `turbo run build` said about its tasks, from the lines it ends with (`Tasks: 3
 * successful, 3 total` and `Cached: 3 cached, 3 total`), as one line for the person who started
 * the server.
 *
 * @param {object} input
 * @param {string} input.output turbo's standard output
 * @param {number} input.seconds how long the build step took
 * @returns {string}
 */
export function describeBuild({ output, seconds }) {
  const cached = /Cached:\s+(\d+) cached, (\d+) total/.exec(output);
  const time = `${seconds.toFixed(1)} s`;
  if (!cached) return `start: build checked in ${time}`;
  const [hits, total] = [Number(cached[1]), Number(cached[2])];
  if (hits === total) {
    return `start: the build is current (${total} of ${total} packages reused), checked in ${time}`;
  }
  return `start: built ${total - hits} of ${total} packages (${hits} reused) in ${time}`;
}

/**
 * The file of the `followup-server` command, as the server's package.json names it: the one
 * `npx followup-server` runs.
 *
 * @param {string} root the repository's root folder
 * @returns {string}
 */
export function serverCommandFile(root) {
  const folder = join(root, 'packages', 'server');
  const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
  return join(folder, manifest.bin['followup-server']);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const began = performance.now();
  const build = spawnSync(
    join(root, 'node_modules', '.bin', 'turbo'),
    ['run', 'build', `--filter=${SERVER}...`, '--output-logs=errors-only', '--no-daemon'],
    {
      cwd: root,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1', DO_NOT_TRACK: '1' },
    },
  );
  if (build.status !== 0) {
    process.stderr.write(build.stdout ?? '');
    process.stderr.write(build.stderr ?? '');
    console.error(
      build.error
        ? `start: could not run turbo (${build.error.message}); run \`npm ci\` first.`
        : 'start: the build failed (above); the server was not started.',
    );
    process.exit(1);
  }
  console.log(describeBuild({ output: build.stdout, seconds: (performance.now() - began) / 1000 }));

  const command = serverCommandFile(root);
  process.argv = [process.argv[0], command, 'start', '--demo', ...process.argv.slice(2)];
  await import(pathToFileURL(command).href);
}
