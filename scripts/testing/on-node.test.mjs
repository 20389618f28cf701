import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nodeMajorOf, nodePrefix, parseOnNodeArguments, provisionNode } from './on-node.mjs';

let scratch;
beforeEach(() => {
  scratch = mkdtempSync(join(tmpdir(), 'on-node-'));
});
afterEach(() => {
  rmSync(scratch, { recursive: true, force: true });
});

/** Writes a stand-in `node` that reports `version` into `prefix`, as the npm package would. */
function writeFakeNode(prefix, version) {
  const bin = join(prefix, 'node_modules', '.bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'node'), `#!/bin/sh\necho ${version}\n`);
  chmodSync(join(bin, 'node'), 0o755);
}

/** An installer that records its calls and installs `version`. */
function fakeInstaller(version) {
  const calls = [];
  return {
    calls,
    install: ({ major, prefix }) => {
      calls.push(major);
      writeFakeNode(prefix, version);
    },
  };
}

describe('provisionNode', () => {
  it('installs the wanted major into the prefix and returns the folder of its binary', () => {
    const prefix = join(scratch, '.node22');
    const installer = fakeInstaller('v22.23.3');
    const bin = provisionNode({ major: 22, prefix, install: installer.install });
    expect(bin).toBe(join(prefix, 'node_modules', '.bin'));
    expect(nodeMajorOf(join(bin, 'node'))).toBe(22);
    expect(installer.calls).toEqual([22]);
    // Nothing is left beside the prefix but the prefix itself.
    expect(readdirSync(scratch)).toEqual(['.node22']);
  });

  it('reuses an installation of the right major without installing again', () => {
    const prefix = join(scratch, '.node22');
    writeFakeNode(prefix, 'v22.1.0');
    const installer = fakeInstaller('v22.23.3');
    provisionNode({ major: 22, prefix, install: installer.install });
    expect(installer.calls).toEqual([]);
  });

  it('replaces an installation of another major', () => {
    const prefix = join(scratch, '.node22');
    writeFakeNode(prefix, 'v20.20.2');
    const installer = fakeInstaller('v22.23.3');
    const bin = provisionNode({ major: 22, prefix, install: installer.install });
    expect(nodeMajorOf(join(bin, 'node'))).toBe(22);
    expect(installer.calls).toEqual([22]);
  });

  it('uses what another run installed while it was installing', () => {
    const prefix = join(scratch, '.node22');
    // The other run renames its installation into place while this one is still installing.
    const install = ({ prefix: staging }) => {
      writeFakeNode(prefix, 'v22.2.0');
      writeFakeNode(staging, 'v22.23.3');
    };
    const bin = provisionNode({ major: 22, prefix, install });
    expect(bin).toBe(join(prefix, 'node_modules', '.bin'));
    expect(nodeMajorOf(join(bin, 'node'))).toBe(22);
    expect(readdirSync(scratch)).toEqual(['.node22']);
  });

  it('fails, leaving nothing behind, when the package brings no binary of that major', () => {
    const prefix = join(scratch, '.node22');
    const installer = fakeInstaller('v24.0.0');
    expect(() => provisionNode({ major: 22, prefix, install: installer.install })).toThrow(
      /did not provide a Node 22 binary/,
    );
    expect(readdirSync(scratch)).toEqual([]);
  });
});

describe('parseOnNodeArguments', () => {
  it('reads the major and the command', () => {
    expect(parseOnNodeArguments(['22', '--', 'vitest', 'run', '--outputFile.json=x.json'])).toEqual(
      { major: 22, command: 'vitest', args: ['run', '--outputFile.json=x.json'] },
    );
  });

  it('reads --print-bin, what scripts/use-node.sh asks for', () => {
    expect(parseOnNodeArguments(['24', '--print-bin'])).toEqual({ major: 24, printBin: true });
  });

  it.each([
    [[]],
    [['22']],
    [['22', 'vitest']],
    [['v22', '--', 'vitest']],
    [['22', '--']],
    [['24', '--print-bin', 'extra']],
    [['--print-bin']],
  ])('refuses %j with the usage', (argv) => {
    expect(() => parseOnNodeArguments(argv)).toThrow(/^usage: on-node\.mjs/);
  });
});

describe('nodePrefix', () => {
  it('is FOLLOWUP_NODE<major>_PREFIX when set, ~/.node<major> otherwise', () => {
    expect(nodePrefix(22, { FOLLOWUP_NODE22_PREFIX: '/opt/node22' }, '/home/me')).toBe(
      '/opt/node22',
    );
    expect(nodePrefix(22, {}, '/home/me')).toBe(join('/home/me', '.node22'));
    expect(nodePrefix(22, { FOLLOWUP_NODE22_PREFIX: '' }, '/home/me')).toBe(
      join('/home/me', '.node22'),
    );
  });
});
