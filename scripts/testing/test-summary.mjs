// The summary `npm test` prints after turbo: every suite (each workspace's test task, and the
// other tasks: lint, check:imports, build, typecheck, docs, check:package), what became of it,
// the test counts from its vitest JSON report, and what did not run and why: whole suites (a
// dependency failed) and the parts of suites their configuration left out (the server's
// PostgreSQL half without FOLLOWUP_TEST_DATABASE_URL, the browser tests without Chromium:
// not-run-reporter.mjs). Kept apart from scripts/test-all.mjs, which runs the commands, so that
// it can be tested on made-up runs.

/**
 * @typedef {object} PlannedTask A task of turbo's plan (`turbo run … --dry=json`).
 * @property {string} taskId e.g. `@followup/sdk#test`
 * @property {string} task e.g. `test`
 * @property {string} package e.g. `@followup/sdk`
 * @property {string} command the script, or `<NONEXISTENT>` when the workspace has none
 * @property {string[]} dependencies the task ids it waits for
 * @property {string} directory the workspace folder, relative to the root
 *
 * @typedef {object} ExecutedTask A task of turbo's run summary (`--summarize`).
 * @property {string} taskId
 * @property {{ exitCode?: number, error?: string } | undefined} execution
 * @property {{ status?: string } | undefined} cache `HIT` when the outputs came from the cache
 *
 * @typedef {object} VitestReport The parts of a vitest JSON report that are counted.
 * @property {number} [numPassedTests]
 * @property {number} [numFailedTests]
 * @property {number} [numPendingTests]
 * @property {number} [numTodoTests]
 *
 * @typedef {import('./not-run-reporter.mjs').NotRunPart} NotRunPart
 *
 * @typedef {object} Suite One line of the summary.
 * @property {string} taskId
 * @property {'passed' | 'failed' | 'not run'} outcome
 * @property {boolean} cached
 * @property {string | undefined} why for a failure or a task that did not run
 * @property {{ passed: number, failed: number, skipped: number } | undefined} counts for a test task
 * @property {NotRunPart[]} notRun the parts of a test task that its run left out, and why
 */

const NONEXISTENT = '<NONEXISTENT>';

/**
 * Builds the summary of one run.
 *
 * @param {object} input
 * @param {PlannedTask[]} input.planned every task turbo planned to run
 * @param {ExecutedTask[]} input.executed the tasks turbo started (a task it never started is absent)
 * @param {(task: PlannedTask) => VitestReport | undefined} input.readReport the test report a test
 *   task wrote in this run, if any
 * @param {(task: PlannedTask) => NotRunPart[] | undefined} [input.readNotRun] what a test task
 *   that ran recorded as left out of it, if anything (not-run-reporter.mjs)
 * @returns {{ suites: Suite[], totals: { passed: number, failed: number, skipped: number }, ok: boolean, lines: string[] }}
 */
export function buildTestSummary({ planned, executed, readReport, readNotRun = () => undefined }) {
  const tasks = planned.filter((task) => task.command !== NONEXISTENT);
  const byId = new Map(planned.map((task) => [task.taskId, task]));
  const ran = new Map(executed.map((task) => [task.taskId, task]));
  const failedIds = new Set(
    executed
      .filter((task) => task.execution !== undefined && task.execution.exitCode !== 0)
      .map((task) => task.taskId),
  );

  /** The failed tasks that `taskId` waits for, directly or through others. */
  const failedDependencies = (taskId) => {
    const found = new Set();
    const seen = new Set();
    const visit = (id) => {
      for (const dependency of byId.get(id)?.dependencies ?? []) {
        if (seen.has(dependency)) continue;
        seen.add(dependency);
        if (failedIds.has(dependency)) found.add(dependency);
        else visit(dependency);
      }
    };
    visit(taskId);
    return [...found].sort();
  };

  const totals = { passed: 0, failed: 0, skipped: 0 };
  /** @type {Suite[]} */
  const suites = [];
  for (const task of [...tasks].sort(compareTasks)) {
    const execution = ran.get(task.taskId)?.execution;
    const cached = ran.get(task.taskId)?.cache?.status === 'HIT';
    if (execution === undefined) {
      const blockers = failedDependencies(task.taskId);
      suites.push({
        taskId: task.taskId,
        outcome: 'not run',
        cached: false,
        why:
          blockers.length > 0 ? `${blockers.join(', ')} failed` : 'turbo stopped before it started',
        counts: undefined,
        notRun: [],
      });
      continue;
    }
    let outcome = execution.exitCode === 0 ? 'passed' : 'failed';
    let why = outcome === 'failed' ? `exit code ${execution.exitCode ?? 'unknown'}` : undefined;
    let counts;
    /** @type {NotRunPart[]} */
    let notRun = [];
    if (isTestTask(task)) {
      notRun = readNotRun(task) ?? [];
      const report = readReport(task);
      if (report === undefined) {
        if (outcome === 'passed') {
          outcome = 'failed';
          why = `it wrote no test report (${reportFileOf(task)})`;
        }
      } else {
        counts = {
          passed: report.numPassedTests ?? 0,
          failed: report.numFailedTests ?? 0,
          skipped: (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0),
        };
        totals.passed += counts.passed;
        totals.failed += counts.failed;
        totals.skipped += counts.skipped;
        if (counts.failed > 0 && outcome === 'passed') {
          outcome = 'failed';
          why = `${counts.failed} failed`;
        }
      }
    }
    suites.push({ taskId: task.taskId, outcome, cached, why, counts, notRun });
  }

  const problems = suites.filter((suite) => suite.outcome !== 'passed');
  const noTests = totals.passed + totals.failed === 0;
  const ok = problems.length === 0 && totals.failed === 0 && !noTests;

  const width = Math.max(0, ...suites.map((suite) => suite.taskId.length));
  const lines = ['', 'Summary:'];
  for (const suite of suites) {
    let line = `  ${suite.taskId.padEnd(width)}  ${suite.outcome}`;
    if (suite.counts !== undefined) {
      line += `: ${suite.counts.passed} passed, ${suite.counts.failed} failed, ${suite.counts.skipped} skipped`;
    }
    if (suite.cached) line += ' (cached)';
    if (suite.why !== undefined) line += ` (${suite.why})`;
    if (suite.notRun.length > 0) {
      line += ` (not run: ${suite.notRun.map((each) => each.part).join(', ')})`;
    }
    lines.push(line);
  }
  const count = (outcome) => suites.filter((suite) => suite.outcome === outcome).length;
  const inPart = suites.filter((suite) => suite.notRun.length > 0).length;
  lines.push('');
  lines.push(
    `Suites: ${count('passed')} passed, ${count('failed')} failed, ${count('not run')} not run` +
      (inPart > 0 ? `; ${inPart} ran in part` : ''),
  );
  // Everything that did not run, in one place: whole suites, then the parts of those that ran.
  const notRunLines = [
    ...suites
      .filter((suite) => suite.outcome === 'not run')
      .map((suite) => `  ${suite.taskId} (${suite.why})`),
    ...suites.flatMap((suite) =>
      suite.notRun.map((each) => `  ${suite.taskId}: ${each.part} (${each.why})`),
    ),
  ];
  if (notRunLines.length > 0) lines.push('Not run:', ...notRunLines);
  if (noTests) lines.push('No test ran.');
  lines.push(`Tests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
  return { suites, totals, ok, lines };
}

/**
 * The vitest JSON report a test task writes in its workspace's folder: `test-results.json` for
 * `test`, `test-results.<name>.json` for `test:<name>` (the root's `test:scripts`, the SDK's and
 * the webhooks package's `test:node22`), so that two test tasks of one workspace never share one.
 *
 * @param {{ task: string }} task
 * @returns {string}
 */
export function reportFileOf(task) {
  return task.task === 'test'
    ? 'test-results.json'
    : `test-results.${task.task.slice('test:'.length)}.json`;
}

/** Whether a task runs tests and writes a vitest report: `test`, or `test:…`. */
function isTestTask(task) {
  return task.task === 'test' || task.task.startsWith('test:');
}

/** Test tasks first, then the others, each group in the order of their ids. */
function compareTasks(a, b) {
  const rank = (task) => (isTestTask(task) ? 0 : 1);
  return rank(a) - rank(b) || a.taskId.localeCompare(b.taskId);
}
