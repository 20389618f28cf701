// Shared by every package's check of itself as users receive it (packages/*/scripts/
// check-installed.mjs): pack workspaces with `npm pack`, install the tarballs, and nothing else,
// into a scratch project outside the workspace, and check what the tarballs declare.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The repository's root folder. */
export const root = new URL('../..', import.meta.url).pathname;

/** The folder of the published package `packages/<name>`. */
export function packageDir(name) {
  return join(root, 'packages', name);
}

/**
 * Packs `packages/<name>` for each name, installs the tarballs alone into a new scratch project
 * in the system's temporary folder, checks that no installed manifest of ours still names an
 * unreleased version, then runs `check(scratch)`; the scratch project is removed afterwards.
 */
export async function withInstalledPackages(names, check) {
  const scratch = mkdtempSync(join(tmpdir(), 'followup-installed-'));
  try {
    const tarballs = names.map((name) => {
      const [{ filename }] = JSON.parse(
        execFileSync('npm', ['pack', '--json', '--pack-destination', scratch], {
          cwd: packageDir(name),
          encoding: 'utf8',
        }),
      );
      return join(scratch, filename);
    });
    writeFileSync(join(scratch, 'package.json'), '{"name":"scratch","private":true}\n');
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', ...tarballs], {
      cwd: scratch,
      stdio: 'ignore',
    });
    for (const name of names) assertReleasedVersions(scratch, `@followup/${name}`);
    await check(scratch);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * Throws when the installed manifest of `packageName` has the unreleased version 0.0.0, or a
 * dependency on another workspace as `workspace:` or 0.0.0: a user installing the tarball from a
 * registry could not resolve it.
 */
export function assertReleasedVersions(scratch, packageName) {
  const manifest = JSON.parse(
    readFileSync(join(scratch, 'node_modules', packageName, 'package.json'), 'utf8'),
  );
  const problems = [];
  if (manifest.version === '0.0.0') problems.push(`version ${manifest.version}`);
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
    for (const [name, range] of Object.entries(manifest[field] ?? {})) {
      if (range.startsWith('workspace:') || range === '0.0.0') {
        problems.push(`${field}.${name} ${range}`);
      }
    }
  }
  if (problems.length > 0) {
    throw new Error(`${packageName}'s tarball is not installable: ${problems.join(', ')}`);
  }
}

/** Runs a CommonJS check script (which may `await import()`) inside the scratch project. */
export function runScript(scratch, fileName, source) {
  writeFileSync(join(scratch, fileName), source);
  execFileSync(process.execPath, [fileName], { cwd: scratch, stdio: 'inherit' });
}
