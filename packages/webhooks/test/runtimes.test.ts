import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runtimeCommand } from '../../../scripts/testing/runtimes.mjs';

// Both entries of the built package under Deno and Bun (their npm packages carry the binaries),
// over every known-answer vector.
const runtimes = (['deno', 'bun'] as const).map((name) => ({
  name,
  ...runtimeCommand(name, 'test/runtime-check.mjs'),
}));

describe.each(runtimes)('the built package under $name', ({ command, args, env }) => {
  it('passes every known-answer vector with both entries', () => {
    expect(existsSync(command)).toBe(true);
    const output = execFileSync(command, args, {
      cwd: new URL('..', import.meta.url).pathname,
      encoding: 'utf8',
      env,
      timeout: 60_000,
    });
    const results = JSON.parse(output.trim().split('\n').at(-1) as string);
    for (const entry of ['node', 'web']) {
      expect(results[entry].failures, entry).toEqual([]);
      expect(results[entry].counted, entry).toBeGreaterThan(50);
      expect(results[entry].standard, entry).toBeGreaterThanOrEqual(29);
    }
  }, 90_000);
});
