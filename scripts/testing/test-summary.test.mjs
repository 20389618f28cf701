import { describe, expect, it } from 'vitest';
import { buildTestSummary, reportFileOf } from './test-summary.mjs';

/** A planned task of workspace `name` (a folder under packages/). */
function plan(name, task, dependencies = [], command = 'x') {
  return {
    taskId: `${name}#${task}`,
    task,
    package: name,
    command,
    dependencies,
    directory: `packages/${name}`,
  };
}

const ran = (taskId, exitCode, cache = 'MISS') => ({
  taskId,
  execution: { exitCode },
  cache: { status: cache },
});

const report = (passed, failed = 0, skipped = 0) => ({
  numPassedTests: passed,
  numFailedTests: failed,
  numPendingTests: skipped,
  numTodoTests: 0,
});

// webhooks <- sdk <- server, and a root lint.
const planned = [
  { ...plan('//', 'lint'), taskId: '//#lint', directory: '' },
  plan('webhooks', 'build'),
  plan('webhooks', 'test', ['webhooks#build']),
  plan('sdk', 'build', ['webhooks#build']),
  plan('sdk', 'test', ['sdk#build']),
  plan('server', 'build', ['sdk#build', 'webhooks#build']),
  plan('server', 'test', ['server#build']),
  plan('server', 'docs', ['sdk#build', 'webhooks#build']),
  plan('example', 'build', [], '<NONEXISTENT>'),
];

describe('buildTestSummary', () => {
  it('counts every suite of a green run and ends with the Tests line', () => {
    const reports = { webhooks: report(10, 0, 1), sdk: report(20), server: report(30, 0, 2) };
    const summary = buildTestSummary({
      planned,
      executed: planned
        .filter((task) => task.command !== '<NONEXISTENT>')
        .map((task) => ran(task.taskId, 0, task.taskId === 'webhooks#build' ? 'HIT' : 'MISS')),
      readReport: (task) => reports[task.package],
    });
    expect(summary.ok).toBe(true);
    expect(summary.totals).toEqual({ passed: 60, failed: 0, skipped: 3 });
    // A workspace without the script is no suite.
    expect(summary.suites.map((suite) => suite.taskId)).not.toContain('example#build');
    expect(summary.lines.at(-1)).toBe('Tests: 60 passed, 0 failed, 3 skipped');
    expect(summary.lines).toContain('Suites: 8 passed, 0 failed, 0 not run');
    expect(summary.lines.find((line) => line.includes('webhooks#build'))).toMatch(
      /passed \(cached\)$/,
    );
    expect(summary.lines.find((line) => line.includes('sdk#test'))).toMatch(
      /sdk#test +passed: 20 passed, 0 failed, 0 skipped$/,
    );
  });

  it('names a failed suite, the suites that still ran, and those that could not and why', () => {
    const summary = buildTestSummary({
      planned,
      executed: [
        ran('//#lint', 0),
        ran('webhooks#build', 0),
        ran('webhooks#test', 1),
        ran('sdk#build', 2),
        // sdk#test, server#build, server#test and server#docs never started.
      ],
      readReport: (task) => (task.package === 'webhooks' ? report(8, 2) : undefined),
    });
    expect(summary.ok).toBe(false);
    const byId = Object.fromEntries(summary.suites.map((suite) => [suite.taskId, suite]));
    expect(byId['webhooks#test']).toMatchObject({
      outcome: 'failed',
      counts: { passed: 8, failed: 2, skipped: 0 },
    });
    expect(byId['sdk#build']).toMatchObject({ outcome: 'failed', why: 'exit code 2' });
    expect(byId['sdk#test']).toMatchObject({ outcome: 'not run', why: 'sdk#build failed' });
    // Found through server#build, which never ran either.
    expect(byId['server#test']).toMatchObject({ outcome: 'not run', why: 'sdk#build failed' });
    expect(byId['server#docs']).toMatchObject({ outcome: 'not run', why: 'sdk#build failed' });
    expect(summary.lines).toContain('Suites: 2 passed, 2 failed, 4 not run');
    expect(summary.lines.find((line) => line.includes('server#test'))).toMatch(
      /not run \(sdk#build failed\)$/,
    );
    expect(summary.lines.at(-1)).toBe('Tests: 8 passed, 2 failed, 0 skipped');
  });

  it('fails a test task that exited 0 but wrote no report, or whose report has failures', () => {
    const summary = buildTestSummary({
      planned,
      executed: planned.map((task) => ran(task.taskId, 0)),
      readReport: (task) =>
        task.package === 'sdk' ? undefined : task.package === 'server' ? report(5, 1) : report(3),
    });
    expect(summary.ok).toBe(false);
    const byId = Object.fromEntries(summary.suites.map((suite) => [suite.taskId, suite]));
    expect(byId['sdk#test']).toMatchObject({
      outcome: 'failed',
      why: 'it wrote no test report (test-results.json)',
    });
    expect(byId['server#test']).toMatchObject({ outcome: 'failed', why: '1 failed' });
    expect(summary.totals).toEqual({ passed: 8, failed: 1, skipped: 0 });
  });

  it('is not green when no test ran at all', () => {
    const summary = buildTestSummary({
      planned: planned.filter((task) => task.task !== 'test'),
      executed: planned.map((task) => ran(task.taskId, 0)),
      readReport: () => undefined,
    });
    expect(summary.ok).toBe(false);
    expect(summary.lines).toContain('No test ran.');
    expect(summary.lines.at(-1)).toBe('Tests: 0 passed, 0 failed, 0 skipped');
  });

  it('names the parts of suites that did not run and why, where it used to say 0 not run', () => {
    const pgHalf = { part: 'the PostgreSQL half', why: 'FOLLOWUP_TEST_DATABASE_URL is unset' };
    const browser = { part: 'the browser tests', why: 'no Chromium at /usr/bin/chromium' };
    const notRun = { server: [pgHalf, browser], sdk: [browser], webhooks: [] };
    const summary = buildTestSummary({
      planned,
      executed: planned.map((task) => ran(task.taskId, 0)),
      readReport: () => report(10),
      readNotRun: (task) => notRun[task.package],
    });
    // Parts left out by the test's own configuration are no failure.
    expect(summary.ok).toBe(true);
    const byId = Object.fromEntries(summary.suites.map((suite) => [suite.taskId, suite]));
    expect(byId['server#test']).toMatchObject({ outcome: 'passed', notRun: [pgHalf, browser] });
    expect(byId['webhooks#test'].notRun).toEqual([]);
    expect(summary.lines.find((line) => line.includes('server#test'))).toMatch(
      /passed: 10 passed, 0 failed, 0 skipped \(not run: the PostgreSQL half, the browser tests\)$/,
    );
    expect(summary.lines).toContain('Suites: 8 passed, 0 failed, 0 not run; 2 ran in part');
    const notRunAt = summary.lines.indexOf('Not run:');
    expect(summary.lines.slice(notRunAt + 1, notRunAt + 4)).toEqual([
      '  sdk#test: the browser tests (no Chromium at /usr/bin/chromium)',
      '  server#test: the PostgreSQL half (FOLLOWUP_TEST_DATABASE_URL is unset)',
      '  server#test: the browser tests (no Chromium at /usr/bin/chromium)',
    ]);
    expect(summary.lines.at(-1)).toBe('Tests: 30 passed, 0 failed, 0 skipped');
  });

  it('lists whole suites that did not run with the parts, each with why', () => {
    const summary = buildTestSummary({
      planned,
      executed: [ran('//#lint', 0), ran('webhooks#build', 0), ran('webhooks#test', 0)],
      readReport: () => report(4),
      readNotRun: (task) =>
        task.package === 'webhooks' ? [{ part: 'the browser tests', why: 'no Chromium' }] : [],
    });
    const notRunAt = summary.lines.indexOf('Not run:');
    expect(notRunAt).toBeGreaterThan(0);
    const listed = summary.lines.slice(notRunAt + 1, summary.lines.length - 1);
    // In the order of the summary: test tasks first.
    expect(listed).toEqual([
      '  sdk#test (turbo stopped before it started)',
      '  server#test (turbo stopped before it started)',
      '  sdk#build (turbo stopped before it started)',
      '  server#build (turbo stopped before it started)',
      '  server#docs (turbo stopped before it started)',
      '  webhooks#test: the browser tests (no Chromium)',
    ]);
  });

  it('says when turbo stopped before a task started for another reason', () => {
    const summary = buildTestSummary({
      planned,
      executed: [ran('//#lint', 0)],
      readReport: () => undefined,
    });
    const byId = Object.fromEntries(summary.suites.map((suite) => [suite.taskId, suite]));
    expect(byId['webhooks#build']).toMatchObject({
      outcome: 'not run',
      why: 'turbo stopped before it started',
    });
    expect(summary.ok).toBe(false);
  });
});

describe('reportFileOf', () => {
  it('gives each test task of a workspace a report of its own', () => {
    expect(reportFileOf(plan('sdk', 'test'))).toBe('test-results.json');
    expect(reportFileOf(plan('sdk', 'test:node22'))).toBe('test-results.node22.json');
    expect(reportFileOf({ ...plan('//', 'test:scripts'), directory: '' })).toBe(
      'test-results.scripts.json',
    );
  });

  it('counts the Node 22 run as a suite of its own, and names its report when it is missing', () => {
    const tasks = [
      plan('sdk', 'build'),
      plan('sdk', 'test', ['sdk#build']),
      plan('sdk', 'test:node22', ['sdk#build']),
    ];
    const summary = buildTestSummary({
      planned: tasks,
      executed: tasks.map((task) => ran(task.taskId, 0)),
      readReport: (task) => (reportFileOf(task) === 'test-results.json' ? report(20) : undefined),
    });
    const byId = Object.fromEntries(summary.suites.map((suite) => [suite.taskId, suite]));
    expect(byId['sdk#test']).toMatchObject({ outcome: 'passed' });
    expect(byId['sdk#test:node22']).toMatchObject({
      outcome: 'failed',
      why: 'it wrote no test report (test-results.node22.json)',
    });
    expect(summary.ok).toBe(false);
  });
});
