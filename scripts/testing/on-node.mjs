#!/usr/bin/env node
// Runs a command on another major version of Node.js: `node scripts/testing/on-node.mjs 22 --
// vitest run`. The SDK and the webhooks package support Node 22 and 24 (their `engines`), and the
// test suite runs their tests on both (the `test:node22` tasks; Node 24 is the one
// scripts/use-node.sh provides). The wanted major is installed once from the npm registry (the
// `node` package carries the official binaries) into FOLLOWUP_NODE<major>_PREFIX or
// ~/.node<major>, then put first on PATH for the command, so that the command, its
// `#!/usr/bin/env node` scripts and every process they start run on it. scripts/use-node.sh
// installs Node 24 through this file too (`--print-bin`), so there is one installer. It runs on
// the machine's own Node, however old (20 here): node: built-ins only.
// scripts/test-all.mjs installs it before turbo starts, where the whole environment (a proxy's
// certificate authority in NODE_EXTRA_CA_CERTS, say) reaches npm; turbo passes tasks only the
// variables it is told to.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The major version of the Node.js binary at `binary`, or undefined when there is none there or
 * it does not run.
 *
 * @param {string} binary
 * @returns {number | undefined}
 */
export function nodeMajorOf(binary) {
  if (!existsSync(binary)) return undefined;
  const result = spawnSync(binary, ['--version'], { encoding: 'utf8' });
  const match = /^v(\d+)\./.exec(result.stdout ?? '');
  return result.status === 0 && match ? Number(match[1]) : undefined;
}

/**
 * Installs the `node` npm package at `node@<major>` into `prefix` with npm.
 *
 * @param {{ major: number, prefix: string }} options
 */
export function npmInstallNode({ major, prefix }) {
  const result = spawnSync(
    'npm',
    ['install', '--prefix', prefix, '--no-save', '--no-audit', '--no-fund', `node@${major}`],
    // npm's output goes to standard error: standard output carries --print-bin's answer.
    { stdio: ['ignore', 2, 2] },
  );
  if (result.status !== 0) {
    throw new Error(`on-node: npm could not install node@${major} into ${prefix}`);
  }
}

/**
 * Makes sure a Node.js of major version `major` is installed under `prefix` and returns the
 * folder that holds its `node` binary. An installation of the right major is reused; anything
 * else there is replaced. Several runs may provision the same prefix at once (turbo runs the
 * packages' tasks side by side): each installs into a folder of its own beside it and renames
 * that into place, so that no run ever sees a half-installed Node.
 *
 * @param {object} options
 * @param {number} options.major
 * @param {string} options.prefix
 * @param {(options: { major: number, prefix: string }) => void} [options.install] installs
 *   `node@<major>` into the given (empty) prefix; npm by default
 * @param {(message: string) => void} [options.log]
 * @returns {string}
 */
export function provisionNode({ major, prefix, install = npmInstallNode, log = () => {} }) {
  const binDir = (root) => join(root, 'node_modules', '.bin');
  if (nodeMajorOf(join(binDir(prefix), 'node')) === major) return binDir(prefix);

  log(`on-node: installing Node ${major} from the npm registry into ${prefix}`);
  const staging = mkdtempSync(join(dirname(prefix), `.${basename(prefix)}-`));
  try {
    install({ major, prefix: staging });
    if (nodeMajorOf(join(binDir(staging), 'node')) !== major) {
      throw new Error(`on-node: the installed package did not provide a Node ${major} binary`);
    }
    try {
      renameSync(staging, prefix);
    } catch (error) {
      // Someone else's installation got there first: use theirs if it is the right one.
      if (nodeMajorOf(join(binDir(prefix), 'node')) === major) return binDir(prefix);
      if (error?.code !== 'ENOTEMPTY' && error?.code !== 'EEXIST') throw error;
      rmSync(prefix, { recursive: true, force: true });
      renameSync(staging, prefix);
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return binDir(prefix);
}

/**
 * Where Node `major` is installed: FOLLOWUP_NODE<major>_PREFIX, or ~/.node<major>.
 *
 * @param {number} major
 * @param {Record<string, string | undefined>} [env]
 * @param {string} [home]
 * @returns {string}
 */
export function nodePrefix(major, env = process.env, home = homedir()) {
  return env[`FOLLOWUP_NODE${major}_PREFIX`] || join(home, `.node${major}`);
}

const USAGE = 'usage: on-node.mjs <major> -- <command> [args…] | on-node.mjs <major> --print-bin';

/**
 * Reads `<major> -- <command> [args…]` (run the command on that Node), or `<major> --print-bin`
 * (install that Node if needed and print the folder of its binary: scripts/use-node.sh does so).
 *
 * @param {string[]} argv
 * @returns {{ major: number, command: string, args: string[] } | { major: number, printBin: true }}
 */
export function parseOnNodeArguments(argv) {
  const [majorText, separator, command, ...args] = argv;
  if (!/^[1-9]\d{0,2}$/.test(majorText ?? '')) throw new Error(USAGE);
  if (separator === '--print-bin' && argv.length === 2) {
    return { major: Number(majorText), printBin: true };
  }
  if (separator !== '--' || !command) throw new Error(USAGE);
  return { major: Number(majorText), command, args };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  let parsed;
  try {
    parsed = parseOnNodeArguments(process.argv.slice(2));
  } catch (error) {
    console.error(error.message);
    process.exit(2);
  }
  const { major } = parsed;
  let bin;
  try {
    bin = provisionNode({ major, prefix: nodePrefix(major), log: (line) => console.error(line) });
  } catch (error) {
    console.error(error.message);
    process.exit(1);
  }
  if ('printBin' in parsed) {
    console.log(bin);
    process.exit(0);
  }
  const { command, args } = parsed;
  const version = spawnSync(join(bin, 'node'), ['--version'], { encoding: 'utf8' }).stdout.trim();
  console.error(`on-node: running \`${[command, ...args].join(' ')}\` on Node ${version}`);
  const child = spawn(command, args, {
    stdio: 'inherit',
    env: { ...process.env, PATH: `${bin}${delimiter}${process.env.PATH ?? ''}` },
  });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    process.exit(code ?? (signal ? 1 : 0));
  });
}
