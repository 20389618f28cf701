// A name has one home (CONTRIBUTING.md, Conventions): when a file is split, its importers import
// each name from the file that now holds it, and no module re-exports another's names, except the
// packages' entry points, whose export lists are their public API. A module that only passes names
// on hides where they live, and lets a split look finished while every importer still goes
// through the old file.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../..', import.meta.url).pathname;

const SOURCE = /\.(ts|mts|cts|tsx)$/;
const TEST = /\.test(-d)?\.[cm]?[jt]sx?$/;
/**
 * The entry points of the packages (their `exports`, the SDK's `./receiver-checks` among them),
 * which list names from other modules, and the parts of an entry point in `src/entry/` (a long
 * list of public names split by subject), each of which its package's `index.ts` re-exports
 * whole (checked below).
 */
const ENTRY_POINT =
  /^packages\/[^/]+\/src\/((index|testing|web|receiver-checks\/index)\.ts|entry\/[^/]+\.ts)$/;

/** Whether `path` (from the repository's root) is a package's non-test source file. */
function isPackageSource(path) {
  return /^packages\/[^/]+\/src\//.test(path) && SOURCE.test(path) && !TEST.test(path);
}

/** The text without its comments and string literals' contents, so that neither can match. */
function code(text) {
  return text.replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*|`(?:\\.|[^`\\])*`/g, '');
}

/**
 * The re-exports of a module's text: `export … from '…'` and `export { name }` lists (which can
 * only pass on what the module imported or declared elsewhere in the file).
 */
function reExports(text) {
  const statements = code(text).match(
    /^export\s+(?:type\s+)?(?:\*(?:\s+as\s+\w+)?|\{[^}]*\})\s*(?:from\s+['"][^'"]+['"])?\s*;?/gm,
  );
  return (statements ?? []).map((statement) => statement.replace(/\s+/g, ' ').trim());
}

const files = execFileSync(
  'git',
  ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', 'packages'],
  { cwd: root, encoding: 'utf8' },
)
  .split('\0')
  .filter(Boolean)
  .filter(isPackageSource);

function readOrNull(path) {
  try {
    return readFileSync(`${root}${path}`, 'utf8');
  } catch {
    return null; // tracked but deleted in the work tree
  }
}

describe('re-exports', () => {
  it('finds both shapes, and nothing in comments or declarations', () => {
    expect(reExports("export { a, type B } from './a.js';\nexport const c = 1;")).toEqual([
      "export { a, type B } from './a.js';",
    ]);
    expect(reExports("import { a } from './a.js';\nexport type {\n  a,\n};")).toEqual([
      'export type { a, };',
    ]);
    expect(reExports("export * from './a.js';")).toEqual(["export * from './a.js';"]);
    expect(
      reExports(
        "// export { a } from './a.js';\n/** export { b } */\nexport function f() {}\nexport interface I {}",
      ),
    ).toEqual([]);
  });

  it('come from src/entry/ only through the package’s index.ts, which re-exports each whole', () => {
    const parts = files.filter((path) => /^packages\/[^/]+\/src\/entry\//.test(path));
    expect(parts).toContain('packages/sdk/src/entry/wire-contract.ts');
    for (const part of parts) {
      const [, pkg, name] = /^packages\/([^/]+)\/src\/entry\/([^/]+)\.ts$/.exec(part) ?? [];
      const index = readOrNull(`packages/${pkg}/src/index.ts`) ?? '';
      expect(reExports(index), part).toContain(`export * from './entry/${name}.js';`);
    }
  });

  it('are only in the packages’ entry points', () => {
    // Guards the listing itself: an empty list would pass whatever the files hold.
    expect(files).toContain('packages/server/src/build-server.ts');
    expect(files).toContain('packages/sdk/src/index.ts');
    const found = files
      .filter((path) => !ENTRY_POINT.test(path))
      .flatMap((path) => {
        const text = readOrNull(path);
        return text === null ? [] : reExports(text).map((statement) => `${path}: ${statement}`);
      });
    expect(found).toEqual([]);
  });
});
