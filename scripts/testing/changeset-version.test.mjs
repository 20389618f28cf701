// `changeset version` in a dry run: on a scratch copy of the manifests and the pending
// changesets, so the repository is never touched. Each published package is versioned on its
// own (no fixed or linked group), private workspaces are never versioned.
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const root = new URL('../..', import.meta.url).pathname;
const changesetBin = join(root, 'node_modules', '@changesets', 'cli', 'bin.js');
const PUBLISHED = ['webhooks', 'sdk', 'server', 'cli'];

const scratches = [];
afterEach(() => {
  for (const scratch of scratches.splice(0)) rmSync(scratch, { recursive: true, force: true });
});

/** A scratch copy of the workspace's manifests, with `changesets` as the pending ones. */
function scratchCopy(changesets) {
  const scratch = mkdtempSync(join(tmpdir(), 'followup-changesets-'));
  scratches.push(scratch);
  const copy = (relative) => {
    mkdirSync(dirname(join(scratch, relative)), { recursive: true });
    cpSync(join(root, relative), join(scratch, relative));
  };
  copy('package.json');
  copy('package-lock.json');
  copy('.changeset/config.json');
  for (const folder of ['packages', 'examples']) {
    for (const name of readdirSync(join(root, folder))) {
      if (existsSync(join(root, folder, name, 'package.json'))) {
        copy(`${folder}/${name}/package.json`);
      }
    }
  }
  for (const [name, text] of Object.entries(changesets)) {
    writeFileSync(join(scratch, '.changeset', name), text);
  }
  execFileSync(process.execPath, [changesetBin, 'version'], { cwd: scratch, stdio: 'ignore' });
  const manifest = (path) => JSON.parse(readFileSync(join(scratch, path, 'package.json'), 'utf8'));
  return { scratch, manifest };
}

const pending = () =>
  Object.fromEntries(
    readdirSync(join(root, '.changeset'))
      .filter((name) => name.endsWith('.md') && name !== 'README.md')
      .map((name) => [name, readFileSync(join(root, '.changeset', name), 'utf8')]),
  );

describe('changeset version (dry run on a scratch copy)', () => {
  it('versions a package on its own: a change to the server moves only the server', () => {
    const before = Object.fromEntries(
      PUBLISHED.map((name) => [
        name,
        JSON.parse(readFileSync(join(root, 'packages', name, 'package.json'), 'utf8')).version,
      ]),
    );
    const { manifest } = scratchCopy({
      'only-server.md': '---\n"@followup/server": minor\n---\n\nA change to the server alone.\n',
    });
    expect(manifest('packages/webhooks').version).toBe(before.webhooks);
    expect(manifest('packages/sdk').version).toBe(before.sdk);
    const [major, minor] = before.server.split('.').map(Number);
    expect(manifest('packages/server').version).toBe(`${major}.${minor + 1}.0`);
  });

  it("applies the pending changesets to each package's own version and changelog", () => {
    const changesets = pending();
    const { scratch, manifest } = scratchCopy(changesets);
    for (const name of PUBLISHED) {
      const mentioned = Object.values(changesets).some((text) =>
        text.split('---')[1]?.includes(`"@followup/${name}"`),
      );
      const changelog = join(scratch, 'packages', name, 'CHANGELOG.md');
      if (mentioned) {
        expect(readFileSync(changelog, 'utf8')).toContain(
          `## ${manifest(`packages/${name}`).version}`,
        );
      }
    }
    // Internal ranges follow the versions they name, never 0.0.0 or workspace:.
    const sdk = manifest('packages/sdk');
    expect(sdk.dependencies['@followup/webhooks']).toBe(
      `^${manifest('packages/webhooks').version}`,
    );
    // Private workspaces (the examples) are never versioned.
    expect(manifest('examples/support').version).toBe('0.0.0');
  });
});
