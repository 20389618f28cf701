#!/usr/bin/env node
// `npm run docs`: one typedoc site for the four packages (entry points from each package's
// typedoc.json, which follow its `exports`), warnings as errors, with the server's OpenAPI
// document beside it as openapi.json. Writes docs/api/ (or the directory given).
// The packages must be built first (`npm run build`): the OpenAPI document comes from the built
// server, generated from the same route schemas a running server serves.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const out = resolve(process.argv[2] ?? join(root, 'docs', 'api'));

const typedoc = spawnSync(
  process.execPath,
  [join(root, 'node_modules/typedoc/bin/typedoc'), '--out', out],
  {
    cwd: root,
    stdio: 'inherit',
  },
);
if (typedoc.status !== 0) process.exit(typedoc.status ?? 1);

const { buildServer, migrate, openPGliteDatabase } = await import(
  join(root, 'packages/server/dist/index.js')
);
const database = await openPGliteDatabase();
try {
  await migrate(database);
  const app = buildServer({ database, logger: false });
  const response = await app.inject({ method: 'GET', url: '/openapi.json' });
  await app.close();
  const document = response.json();
  // A static copy names no server: the reader's own server is where the API lives.
  delete document.servers;
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'openapi.json'), `${JSON.stringify(document, null, 2)}\n`);
} finally {
  await database.close();
}
console.log(
  `docs: the reference site is in ${out} (open index.html); the OpenAPI document is openapi.json beside it`,
);
