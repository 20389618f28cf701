// The import rules of .dependency-cruiser.cjs (ARCHITECTURE.md, "Import rules"), run by
// `npm run check:imports`, tried on made-up packages: each rule refuses what it is there to
// refuse, and lets the layering the code keeps through. A rule that matched nothing (a wrong path
// pattern, a folder name that moved) would otherwise pass the real tree without checking it.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const root = new URL('../..', import.meta.url).pathname;
const depcruise = join(root, 'node_modules/dependency-cruiser/bin/dependency-cruiser.mjs');

const scratches = [];
afterEach(() => {
  for (const scratch of scratches.splice(0)) rmSync(scratch, { recursive: true, force: true });
});

/**
 * The violations the repository's config finds in a made-up tree.
 *
 * @param {Record<string, string>} files paths under the scratch root (`packages/…`) and their text
 * @returns {{ rule: string, from: string, to: string }[]}
 */
function violationsOf(files) {
  const scratch = mkdtempSync(join(tmpdir(), 'import-rules-'));
  scratches.push(scratch);
  copyFileSync(join(root, 'tsconfig.base.json'), join(scratch, 'tsconfig.base.json'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(scratch, path)), { recursive: true });
    writeFileSync(join(scratch, path), text);
  }
  let output;
  try {
    output = execFileSync(
      process.execPath,
      [depcruise, 'packages', '--config', join(root, '.dependency-cruiser.cjs'), '-T', 'json'],
      { cwd: scratch, encoding: 'utf8' },
    );
  } catch (error) {
    // depcruise exits with the number of errors; the report is still on stdout.
    output = error.stdout;
  }
  return JSON.parse(output).summary.violations.map((violation) => ({
    rule: violation.rule.name,
    from: violation.from,
    to: violation.to,
  }));
}

const server = (path) => `packages/server/src/${path}`;

describe('import rules (.dependency-cruiser.cjs)', () => {
  it('refuse an import cycle, even of types only', () => {
    const violations = violationsOf({
      'packages/webhooks/src/a.ts': "import type { B } from './b.js';\nexport type A = B[];\n",
      'packages/webhooks/src/b.ts': "import type { A } from './a.js';\nexport type B = A | 1;\n",
    });
    expect(violations.map((violation) => violation.rule)).toContain('no-circular');
  });

  it("refuse a cycle between the server's folders", () => {
    const violations = violationsOf({
      [server('plugins/auth.ts')]:
        "import { session } from '../web/session.js';\nexport const auth = session;\n",
      [server('web/session.ts')]:
        "import { fail } from '../plugins/fail.js';\nexport const session = fail;\n",
      [server('plugins/fail.ts')]: 'export const fail = 1;\n',
    });
    expect(violations).toContainEqual(
      expect.objectContaining({ rule: 'no-server-folder-cycle', from: server('web') }),
    );
  });

  it("refuse the SDK's internal/ outside the SDK, and allow it inside", () => {
    const violations = violationsOf({
      'packages/sdk/src/internal/backoff.ts': 'export const backoff = 1;\n',
      'packages/sdk/src/client.ts':
        "import { backoff } from './internal/backoff.js';\nexport const client = backoff;\n",
      [server('retry.ts')]:
        "import { backoff } from '../../sdk/src/internal/backoff.js';\nexport const retry = backoff;\n",
    });
    expect(violations).toEqual([
      {
        rule: 'sdk-internal-stays-in-sdk',
        from: server('retry.ts'),
        to: 'packages/sdk/src/internal/backoff.ts',
      },
    ]);
  });

  it('refuse a store importing a surface', () => {
    for (const surface of ['routes', 'web', 'cli', 'plugins']) {
      const violations = violationsOf({
        [server(`${surface}/thing.ts`)]: 'export const thing = 1;\n',
        [server('stores/contact-store.ts')]:
          `import { thing } from '../${surface}/thing.js';\nexport const store = thing;\n`,
      });
      expect(violations, surface).toEqual([
        {
          rule: 'stores-below-surfaces',
          from: server('stores/contact-store.ts'),
          to: server(`${surface}/thing.ts`),
        },
      ]);
    }
  });

  it('let the layering through: surfaces over stores, files at the top of src/ shared', () => {
    const violations = violationsOf({
      [server('problem-error.ts')]: 'export class ProblemError extends Error {}\n',
      [server('stores/contact-store.ts')]:
        "import { ProblemError } from '../problem-error.js';\nexport const store = ProblemError;\n",
      [server('routes/contacts.ts')]:
        "import { store } from '../stores/contact-store.js';\nexport const route = store;\n",
      [server('build-server.ts')]:
        "import { route } from './routes/contacts.js';\nexport const app = route;\n",
    });
    expect(violations).toEqual([]);
  });
});
