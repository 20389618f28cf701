import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { holdsDatabase, resolveDataDirectory } from './data-directory.js';

describe('resolveDataDirectory', () => {
  const env = { HOME: '/home/ada', XDG_DATA_HOME: '/data/ada', FOLLOWUP_DATA_DIR: '/srv/followup' };

  it('takes --data-dir first, then FOLLOWUP_DATA_DIR, both as named', () => {
    expect(resolveDataDirectory('/var/lib/followup', env)).toEqual({
      path: '/var/lib/followup',
      explicit: true,
    });
    expect(resolveDataDirectory(undefined, env)).toEqual({
      path: '/srv/followup',
      explicit: true,
    });
    expect(resolveDataDirectory('relative/dir', {})).toEqual({
      path: resolve('relative/dir'),
      explicit: true,
    });
  });

  it("defaults to followup under the user's data home, whatever the working directory", () => {
    expect(resolveDataDirectory(undefined, { ...env, FOLLOWUP_DATA_DIR: '' })).toEqual({
      path: '/data/ada/followup',
      explicit: false,
    });
    expect(resolveDataDirectory(undefined, { HOME: '/home/ada' })).toEqual({
      path: '/home/ada/.local/share/followup',
      explicit: false,
    });
    // A relative XDG_DATA_HOME is ignored, as the XDG specification says.
    expect(resolveDataDirectory(undefined, { HOME: '/home/ada', XDG_DATA_HOME: 'data' })).toEqual({
      path: '/home/ada/.local/share/followup',
      explicit: false,
    });
  });
});

describe('holdsDatabase', () => {
  it('tells a database directory from an empty or missing one', () => {
    const scratch = mkdtempSync(join(tmpdir(), 'followup-data-dir-'));
    onTestFinished(() => rmSync(scratch, { recursive: true, force: true }));
    expect(holdsDatabase(join(scratch, 'missing'))).toBe(false);
    mkdirSync(join(scratch, 'empty'));
    expect(holdsDatabase(join(scratch, 'empty'))).toBe(false);
    mkdirSync(join(scratch, 'database'));
    writeFileSync(join(scratch, 'database', 'PG_VERSION'), '17\n');
    expect(holdsDatabase(join(scratch, 'database'))).toBe(true);
  });
});
