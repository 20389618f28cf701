import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { captureIo } from '../../test/support/cli-io.js';
import { TRACING_VARIABLES } from '../tracing/tracing-environment.js';
import { deliveryOptions } from './delivery-options.js';
import {
  OPTION_VARIABLES,
  OPTIONS_WITHOUT_VARIABLE,
  withEnvironmentSwitches,
} from './option-variables.js';
import { runCli } from './run-cli.js';
import { START_OPTIONS } from './start-command.js';
import { isTrue } from './start-option-parsers.js';
import { type CliOptions, GLOBAL_OPTIONS, type OptionName, usage } from './usage.js';

// Every option `start` takes, from the lists the command line refuses other options by.
const startFlags: readonly OptionName[] = [...new Set([...GLOBAL_OPTIONS, ...START_OPTIONS])];
const configuredFlags = startFlags.filter((flag) => !OPTIONS_WITHOUT_VARIABLE.includes(flag));
const variableOf = (flag: OptionName): string | undefined =>
  (OPTION_VARIABLES as Partial<Record<OptionName, string>>)[flag];

/** The rows of the README's configuration table: flag and variable, without backticks. */
function readmeConfigurationRows(): { flag: string; variable: string; defaultValue: string }[] {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const section = readme.split('\n## Configuration\n')[1]?.split('\n## ')[0] ?? '';
  return section
    .split('\n')
    .filter((line) => line.startsWith('|') && !/^\|\s*(Flag|-)/.test(line))
    .map((line) => {
      const [flag = '', variable = '', defaultValue = ''] = line
        .slice(1)
        .split('|')
        .map((cell) => cell.trim().replaceAll('`', ''));
      return { flag, variable, defaultValue };
    });
}

/** The help text of one flag: its line and the lines that continue it. */
function helpOf(flag: string): string {
  const lines = usage.split('\n');
  const at = lines.findIndex((line) => new RegExp(`^\\s+--${flag}(\\s|$)`).test(line));
  if (at === -1) return '';
  const rest = lines.slice(at + 1);
  const next = rest.findIndex((line) => !/^\s{20,}\S/.test(line));
  return [lines[at], ...rest.slice(0, next === -1 ? rest.length : next)].join('\n');
}

describe('the configuration of start', () => {
  it('gives every flag an environment variable, or says why it has none', () => {
    expect(startFlags.length).toBeGreaterThan(30);
    expect(configuredFlags.filter((flag) => variableOf(flag) === undefined)).toEqual([]);
    // No variable left for a flag start no longer takes.
    expect(
      Object.keys(OPTION_VARIABLES).filter((flag) => !startFlags.includes(flag as OptionName)),
    ).toEqual([]);
  });

  it('lists every flag, its variable and its default in one README table', () => {
    const rows = readmeConfigurationRows();
    for (const flag of configuredFlags) {
      const row = rows.find((candidate) => candidate.flag === `--${flag}`);
      expect(row, `a README row for --${flag}`).toBeDefined();
      expect(row?.variable, `--${flag}'s variable in the README`).toBe(variableOf(flag));
      expect(row?.defaultValue, `--${flag}'s default in the README`).not.toBe('');
    }
    expect(new Set(rows.map((row) => row.flag).filter(Boolean)).size).toBe(configuredFlags.length);
  });

  it('names the variable beside each flag in --help', () => {
    for (const flag of configuredFlags) {
      expect(helpOf(flag), `--help on --${flag}`).toContain(variableOf(flag));
    }
  });

  it('reads every variable in the code', () => {
    const folder = new URL('.', import.meta.url);
    const sources = readdirSync(folder)
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
      .filter((file) => file !== 'option-variables.ts' && file !== 'usage.ts')
      .map((file) => readFileSync(new URL(file, folder), 'utf8'))
      .join('\n');
    const withSwitches = readFileSync(new URL('option-variables.ts', folder), 'utf8');
    for (const flag of configuredFlags) {
      const variable = variableOf(flag) ?? '';
      const read =
        new RegExp(`env\\.${variable}\\b|'${variable}'`).test(sources) ||
        withSwitches.includes(`env[OPTION_VARIABLES.${flag}]`);
      expect(read, `${variable} is read`).toBe(true);
    }
  });
});

describe('the OpenTelemetry variables of start', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  // The first column of the README's "Traces" table, a cell naming one variable or several.
  const tracesTableVariables = (readme.split('\n### Traces\n')[1]?.split('\n### ')[0] ?? '')
    .split('\n')
    .filter((line) => line.startsWith('| `OTEL_'))
    .flatMap((line) => [...(line.split('|')[1] ?? '').matchAll(/`(OTEL_\w+)`/g)].map((m) => m[1]));

  it('lists every one in --help, with what the SDK reads besides', () => {
    const help = usage.split('(environment only)')[1] ?? '';
    for (const variable of TRACING_VARIABLES) {
      expect(help, `--help on ${variable}`).toMatch(new RegExp(`\\b${variable}\\b`));
    }
    expect(help).toContain('OTEL_BSP_*');
  });

  it('lists every one in the configuration table, as the Traces table does', () => {
    expect(tracesTableVariables.toSorted()).toEqual([...TRACING_VARIABLES].toSorted());
    const tracesRow = readmeConfigurationRows().find((row) => row.variable.includes('OTEL_'));
    for (const variable of TRACING_VARIABLES) {
      expect(tracesRow?.variable.split(/[\s,]+/), `${variable} in the table`).toContain(variable);
    }
  });
});

describe('withEnvironmentSwitches', () => {
  const none = { json: false, demo: false } as CliOptions;

  it('turns --demo on for start from FOLLOWUP_DEMO, with what it implies', () => {
    const values = withEnvironmentSwitches(none, { FOLLOWUP_DEMO: 'true' }, { command: 'start' });
    expect(values.demo).toBe(true);
    expect(deliveryOptions(values, {}).allowPrivate).toBe(true);
    expect(withEnvironmentSwitches(none, { FOLLOWUP_DEMO: 'true' }, { command: 'seed' }).demo).toBe(
      false,
    );
    expect(withEnvironmentSwitches(none, { FOLLOWUP_DEMO: 'false' }, { command: 'start' })).toBe(
      none,
    );
  });

  it('turns --json on from FOLLOWUP_JSON for every command, never off', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.constantFrom('1', 'true', 'YES', ' on ', 'false', '0', ''), fc.string()),
        fc.boolean(),
        fc.constantFrom('start', 'accounts', undefined),
        (text, flag, command) => {
          const values = withEnvironmentSwitches(
            { ...none, json: flag },
            { FOLLOWUP_JSON: text },
            { command },
          );
          expect(values.json).toBe(flag || isTrue(text));
          expect(values.demo).toBe(false);
        },
      ),
    );
  });

  it('makes a command answer in JSON when FOLLOWUP_JSON is set', async () => {
    const home = await mkdtemp(join(tmpdir(), 'followup-json-'));
    try {
      const { io, err } = captureIo({ HOME: home, FOLLOWUP_JSON: 'true' });
      expect(await runCli(['accounts', 'list'], io)).toBe(1);
      expect(JSON.parse(err.join(''))).toMatchObject({
        error: { code: 'data_directory_missing' },
      });
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
