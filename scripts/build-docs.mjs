#!/usr/bin/env node
// `npm run docs`: one typedoc site for the four packages (entry points from each package's
// typedoc.json, which follow its `exports`) and the guides (docs/*.md and the root documents),
// warnings as errors, with the server's HTTP API reference in it. Writes docs/api/ (or the
// directory given).
// The packages must be built first (`npm run build`): the OpenAPI document comes from the built
// server, generated from the same route schemas a running server serves.
//
// The HTTP API reference is the OpenAPI document in Swagger UI, as a running server's /docs shows
// it, in one self-contained page (http-api-page.mjs; Redoc's build was tried, and its page loads
// a logo from a CDN and sends telemetry). It is written with the document to docs/generated/
// before typedoc runs, so that the guides link to them as files typedoc checks and copies into
// the site; the document is also put at the site's root as openapi.json.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { httpApiPage } from './http-api-page.mjs';

const root = new URL('..', import.meta.url).pathname;
const out = resolve(process.argv[2] ?? join(root, 'docs', 'api'));
const generated = join(root, 'docs', 'generated');

/** Runs a Node script of a dev dependency from the root, and stops here if it fails. */
function run(script, args) {
  const result = spawnSync(process.execPath, [join(root, script), ...args], {
    cwd: root,
    stdio: 'inherit',
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const { buildServer, migrate, openPGliteDatabase } = await import(
  join(root, 'packages/server/dist/index.js')
);
const database = await openPGliteDatabase();
let document;
try {
  await migrate(database);
  const app = buildServer({ database, logger: false });
  const response = await app.inject({ method: 'GET', url: '/openapi.json' });
  await app.close();
  document = response.json();
} finally {
  await database.close();
}
// A static copy names no server: the reader's own server is where the API lives.
delete document.servers;
const json = `${JSON.stringify(document, null, 2)}\n`;
mkdirSync(generated, { recursive: true });
writeFileSync(join(generated, 'openapi.json'), json);

writeFileSync(
  join(generated, 'http-api.html'),
  httpApiPage({ document, title: 'FollowUp HTTP API reference' }),
);
run('node_modules/typedoc/bin/typedoc', ['--out', out]);

mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'openapi.json'), json);
console.log(
  `docs: the reference site is in ${out} (open index.html); the OpenAPI document is openapi.json beside it`,
);
