#!/usr/bin/env node
// `npm install` has left out of package-lock.json the optional dependencies that do not fit the
// machine it ran on: the other platforms' builds of packages that ship one native binary per
// platform (biome, turbo, rollup, deno, workerd…). `npm ci` then refuses the
// lockfile as out of sync with package.json. This adds each missing optional dependency back as
// an entry, with what npm needs to skip it on a machine it does not fit: the `os`, `cpu` and
// `libc` of the package's own manifest, read from the registry (`npm view`). An entry without
// them fits every machine, so `npm ci` on Linux installed the Windows, macOS and Android builds
// too (1.7 GB of a 2.6 GB node_modules). It also records the tarball's `integrity`, so that the
// machine the entry fits checks what it downloads, as it does for every other package.
//
// Run it after every `npm install` that changes package-lock.json: `npm run lockfile`. An entry an
// earlier run wrote without those fields is completed too.
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/** The fields of a package's manifest that npm reads from its lockfile entry to skip it. */
const PLATFORM_FIELDS = ['os', 'cpu', 'libc'];

/** How many `npm view` run at once. */
const CONCURRENT_READS = 8;

/**
 * @typedef {object} PlatformManifest What the lockfile records of a package's own manifest.
 * @property {string} [version] the version it is, where the dependency names a range
 * @property {string[]} [os]
 * @property {string[]} [cpu]
 * @property {string[]} [libc]
 * @property {string} [integrity] the tarball's Subresource Integrity hash (`dist.integrity`)
 */

/**
 * Reads `name@version`'s manifest from the registry npm is configured with (`npm view`).
 *
 * @param {{ name: string, version: string }} spec
 * @returns {Promise<PlatformManifest>}
 */
export async function readManifestFromRegistry({ name, version }) {
  const { stdout } = await promisify(execFile)('npm', ['view', `${name}@${version}`, '--json'], {
    maxBuffer: 16 * 1024 * 1024,
  });
  // A range that several versions match is answered with all of them, the highest last.
  const manifest = [JSON.parse(stdout)].flat().at(-1);
  return {
    version: manifest.version,
    ...Object.fromEntries(PLATFORM_FIELDS.filter((f) => manifest[f]).map((f) => [f, manifest[f]])),
    ...(manifest.dist?.integrity ? { integrity: manifest.dist.integrity } : {}),
  };
}

/**
 * Whether a lockfile entry needs the fields of its manifest: one this script adds, or one an
 * earlier run wrote. npm records an `integrity` for every package it resolved itself.
 *
 * @param {Record<string, unknown> | undefined} entry
 */
function needsManifest(entry) {
  return entry === undefined || (entry.optional === true && entry.integrity === undefined);
}

/**
 * Adds to a lockfile (version 2 or 3) every optional dependency it lacks, and completes those an
 * earlier run added without their platform, each with the `os`, `cpu`, `libc` and `integrity` of
 * the package's manifest, so that `npm ci` accepts the lockfile on every machine and installs on
 * each only the builds that fit it. Entries npm wrote itself are left as they are.
 *
 * @param {object} options
 * @param {{ packages: Record<string, Record<string, any>> }} options.lock the parsed
 *   package-lock.json; not changed
 * @param {(spec: { name: string, version: string }) => Promise<PlatformManifest>} options.readManifest
 * @returns {Promise<{ lock: object, added: number, completed: number }>}
 */
export async function completeLockfile({ lock, readManifest }) {
  const packages = { ...lock.packages };
  /** @type {Map<string, { name: string, version: string, dev: boolean, added: boolean }>} */
  const wanted = new Map();
  for (const [location, meta] of Object.entries(lock.packages)) {
    for (const [name, version] of Object.entries(meta.optionalDependencies ?? {})) {
      const nested = `${location ? `${location}/` : ''}node_modules/${name}`;
      const hoisted = `node_modules/${name}`;
      const key = nested in packages ? nested : hoisted;
      const entry = packages[key];
      if (wanted.has(key) || !needsManifest(entry)) continue;
      wanted.set(key, {
        name,
        version: entry?.version ?? version,
        dev: entry?.dev ?? meta.dev === true,
        added: entry === undefined,
      });
    }
  }

  const entries = [...wanted];
  const read = new Map();
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < entries.length) {
      const [key, spec] = entries[next++];
      try {
        read.set(key, await readManifest({ name: spec.name, version: spec.version }));
      } catch (error) {
        failed = true;
        throw new Error(
          `complete-lockfile: could not read the manifest of ${spec.name}@${spec.version}`,
          { cause: error },
        );
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENT_READS }, worker));

  for (const [key, { version, dev }] of entries) {
    const manifest = read.get(key);
    const { integrity, cpu, libc, os } = manifest;
    // Keys in the order npm writes them.
    packages[key] = {
      version: manifest.version ?? version,
      ...(integrity ? { integrity } : {}),
      ...(cpu ? { cpu } : {}),
      ...(dev ? { dev: true } : {}),
      ...(libc ? { libc } : {}),
      optional: true,
      ...(os ? { os } : {}),
    };
  }
  const sorted = Object.fromEntries(
    Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1)),
  );
  const added = entries.filter(([, spec]) => spec.added).length;
  return { lock: { ...lock, packages: sorted }, added, completed: entries.length - added };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const path = new URL('../package-lock.json', import.meta.url);
  const lock = JSON.parse(readFileSync(path, 'utf8'));
  try {
    const result = await completeLockfile({ lock, readManifest: readManifestFromRegistry });
    writeFileSync(path, `${JSON.stringify(result.lock, null, 2)}\n`);
    console.log(
      `complete-lockfile: added ${result.added} optional platform entries, completed ${result.completed}`,
    );
  } catch (error) {
    console.error(error.message);
    if (error.cause?.stderr) console.error(String(error.cause.stderr).trim());
    process.exit(1);
  }
}
