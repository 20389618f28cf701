// How the packages' tests run a script of theirs under Deno or Bun, whose npm packages (`deno`,
// `bun`) carry the binaries: one copy of the binary's path, the flags and the environment, for the
// SDK's and the webhooks package's runtime tests.
import { fileURLToPath } from 'node:url';

/**
 * The path of a binary an npm package of the workspace installs (`node_modules/.bin/<name>`).
 *
 * @param {string} name
 * @returns {string}
 */
export function workspaceBinary(name) {
  return fileURLToPath(new URL(`../../node_modules/.bin/${name}`, import.meta.url));
}

/**
 * The command that runs `script` under `runtime`, with `args` after it: Deno quietly, without
 * prompts and with network access to the loopback address only when `loopback` is set; Bun as
 * it is. The environment turns colours and Deno's update check off.
 *
 * @param {'deno' | 'bun'} runtime
 * @param {string} script
 * @param {{ args?: readonly string[], loopback?: boolean }} [options]
 * @returns {{ command: string, args: string[], env: NodeJS.ProcessEnv }}
 */
export function runtimeCommand(runtime, script, { args = [], loopback = false } = {}) {
  const flags =
    runtime === 'deno'
      ? ['run', '--quiet', '--no-prompt', ...(loopback ? ['--allow-net=127.0.0.1'] : [])]
      : [];
  return {
    command: workspaceBinary(runtime),
    args: [...flags, script, ...args],
    env: { ...process.env, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1' },
  };
}
