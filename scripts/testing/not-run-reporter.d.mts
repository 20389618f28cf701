import type { Reporter } from 'vitest/node';

/** A part of a suite that a test run left out, and why. */
export interface NotRunPart {
  part: string;
  why: string;
}
/** The file that records what a run left out, beside its JSON report. */
export declare function notRunFileOf(reportFile: string): string;
/** A vitest reporter that writes `parts` beside the run's JSON report when the run ends. */
export declare function notRunReporter(options: {
  parts: NotRunPart[];
  reportFile?: string;
}): Reporter;
/** The browser tests' part, when this machine has no Chromium. */
export declare function browserTestsNotRun(): NotRunPart[];
/** The PostgreSQL half of a suite, when FOLLOWUP_TEST_DATABASE_URL is unset. */
export declare function postgresHalfNotRun(databaseUrl: string | undefined): NotRunPart[];
/** The PostgreSQL run of the files that run on PGlite only, when there are any. */
export declare function pgliteOnlyNotRun(files: number): NotRunPart[];
