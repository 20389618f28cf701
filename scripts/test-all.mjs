#!/usr/bin/env node
// The whole test suite, exactly what CI runs: lint and format (biome, over the whole repository),
// the import rules of packages/*/src (check:imports: dependency-cruiser, .dependency-cruiser.cjs),
// the tests of these scripts, then for every package and example build, typecheck, unit and
// integration tests, the SDK's and the webhooks package's tests once more on Node 22 (test:node22,
// through scripts/testing/on-node.mjs), typedoc (warnings are errors) and the package checks
// (publint, attw, installing the packed tarball). A failure never hides the rest: turbo goes on with every task
// whose dependencies succeeded. The run ends with a summary naming each suite, its counts and what
// did not run (and why): whole suites, and the parts of suites that their vitest configs left out
// (the server's PostgreSQL half without FOLLOWUP_TEST_DATABASE_URL, the browser tests without
// Chromium, recorded by testing/not-run-reporter.mjs), then one line counting every test that
// ran; the exit code is non-zero on any failure.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { notRunFileOf } from './testing/not-run-reporter.mjs';
import { nodePrefix, provisionNode } from './testing/on-node.mjs';
import { buildTestSummary, reportFileOf } from './testing/test-summary.mjs';

const root = new URL('..', import.meta.url).pathname;
const TASKS = [
  'lint',
  'check:imports',
  'test:scripts',
  'build',
  'typecheck',
  'test',
  'test:node22',
  'docs',
  'check:package',
];

// Reports of an earlier run must never be counted: remove them all before turbo starts (a
// cached test task gets its report back from the cache).
const workspaces = [root];
for (const folder of ['packages', 'examples']) {
  const base = join(root, folder);
  if (!existsSync(base)) continue;
  for (const name of readdirSync(base)) workspaces.push(join(base, name));
}
for (const workspace of workspaces) {
  if (!existsSync(workspace)) continue;
  for (const name of readdirSync(workspace)) {
    if (/^test-results(\.[\w-]+)*\.json$/.test(name))
      rmSync(join(workspace, name), { force: true });
  }
}

// Node 22 for the test:node22 tasks, installed here once (outside turbo, whose tasks see only the
// variables turbo passes them) rather than by two tasks at once. On failure those tasks try again
// themselves, and fail with npm's reason if it still cannot be installed.
try {
  provisionNode({ major: 22, prefix: nodePrefix(22), log: (line) => console.log(line) });
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
}

// The plan: every task turbo would run, with what it waits for. A task that never starts (its
// dependency failed) is absent from turbo's run summary, so it is found here.
const dry = spawnSync('npx', ['turbo', 'run', ...TASKS, '--dry=json'], {
  cwd: root,
  encoding: 'utf8',
  maxBuffer: 64 * 1024 * 1024,
});
if (dry.status !== 0) {
  process.stderr.write(dry.stderr);
  console.error('turbo could not plan the run.');
  process.exit(1);
}
const planned = JSON.parse(dry.stdout).tasks;

const runs = join(root, '.turbo', 'runs');
const before = new Set(existsSync(runs) ? readdirSync(runs) : []);
const args = [
  'turbo',
  'run',
  ...TASKS,
  '--continue=dependencies-successful',
  '--summarize',
  '--output-logs=new-only',
  '--concurrency=2',
];
console.log(`\n$ npx ${args.join(' ')}`);
// The docs task builds the reference site into docs/api/ before the example-support tests, which
// depend on it (examples/support/turbo.json): they check that site rather than build it again.
spawnSync('npx', args, {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, FOLLOWUP_DOCS_SITE: join(root, 'docs', 'api') },
});

const summaryFile = (existsSync(runs) ? readdirSync(runs) : [])
  .filter((name) => name.endsWith('.json') && !before.has(name))
  .sort()
  .at(-1);
if (summaryFile === undefined) {
  console.error('turbo wrote no run summary: nothing can be counted.');
  process.exit(1);
}
const executed = JSON.parse(readFileSync(join(runs, summaryFile), 'utf8')).tasks;

const summary = buildTestSummary({
  planned,
  executed,
  readReport: (task) => {
    const file = join(root, task.directory, reportFileOf(task));
    return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined;
  },
  readNotRun: (task) => {
    const file = join(root, task.directory, notRunFileOf(reportFileOf(task)));
    return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')).notRun : undefined;
  },
});
for (const line of summary.lines) console.log(line);
process.exit(summary.ok ? 0 : 1);
