#!/usr/bin/env node
// The `followup-server` command. npm links a package's commands when it installs it, and only to
// files that exist then: in a clone of the repository `npm ci` runs before anything is built, so
// a command pointing into dist/ was never linked, and `npx followup-server` fetched the published
// package instead of running this one. This file is in the repository, so npm links it at once;
// it runs the built CLI (src/cli.ts), or says how to build it.
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write(
    'followup-server: the server is not built yet; run `npm run build` (or `npm start`) at the root of the repository.\n',
  );
  process.exit(1);
}
await import(cli.href);
