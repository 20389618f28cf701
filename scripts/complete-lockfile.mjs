#!/usr/bin/env node
// The npm registry this project is built from carries only the Linux builds of packages that ship
// one native binary per platform (biome, rollup, turbo, esbuild…). `npm install` then leaves
// the other platforms' optional dependencies out of package-lock.json, and `npm ci` refuses the
// lockfile as out of sync with package.json. This adds each missing optional dependency back as
// an optional entry, which `npm ci` accepts and skips on a machine it does not fit.
//
// Run it after every `npm install` that changes package-lock.json: `npm run lockfile`.
import { readFileSync, writeFileSync } from 'node:fs';

const path = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8'));
const packages = lock.packages;
let added = 0;
for (const [location, meta] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(meta.optionalDependencies ?? {})) {
    const nested = `${location ? `${location}/` : ''}node_modules/${name}`;
    const hoisted = `node_modules/${name}`;
    if (nested in packages || hoisted in packages) continue;
    packages[hoisted] = { version, ...(meta.dev ? { dev: true } : {}), optional: true };
    added++;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1)),
);
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: added ${added} optional platform entries`);
