#!/usr/bin/env node
// The whole test suite, exactly what CI runs: lint and format (biome, over the whole repository),
// then for every package build,
// typecheck, unit and integration tests, typedoc (warnings are errors) and the package checks
// (publint, attw, installing the packed tarball). It ends with one summary line of every test
// that ran, so a reader (and CI) sees how many passed.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;

function run(command, args) {
  console.log(`\n$ ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: process.env });
  return result.status ?? 1;
}

const steps = [
  [
    'npx',
    [
      'turbo',
      'run',
      'lint',
      'build',
      'typecheck',
      'test',
      'docs',
      'check:package',
      '--output-logs=new-only',
      '--concurrency=2',
    ],
  ],
];

let failed = false;
for (const [command, args] of steps) {
  if (run(command, args) !== 0) {
    failed = true;
    break;
  }
}

// Sum the vitest JSON reports of every workspace.
const totals = { passed: 0, failed: 0, skipped: 0, files: 0 };
for (const folder of ['packages', 'examples']) {
  const base = join(root, folder);
  if (!existsSync(base)) continue;
  for (const name of readdirSync(base)) {
    const report = join(base, name, 'test-results.json');
    if (!existsSync(report)) continue;
    const result = JSON.parse(readFileSync(report, 'utf8'));
    totals.passed += result.numPassedTests ?? 0;
    totals.failed += result.numFailedTests ?? 0;
    totals.skipped += (result.numPendingTests ?? 0) + (result.numTodoTests ?? 0);
    totals.files += result.numTotalTestSuites ?? 0;
    console.log(
      `${folder}/${name}: ${result.numPassedTests} passed, ${result.numFailedTests} failed`,
    );
  }
}
if (totals.passed + totals.failed === 0) {
  console.error('No test ran.');
  failed = true;
}
console.log(`\nTests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(failed || totals.failed > 0 ? 1 : 0);
