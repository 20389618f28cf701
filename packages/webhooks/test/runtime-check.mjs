// Run by test/runtimes.test.ts under Deno and Bun: every known-answer vector through both entries
// of the built package, printed as one JSON line.
import * as node from '../dist/index.js';
import * as web from '../dist/web.js';
import vectors from '../vectors/known-answer.json' with { type: 'json' };
import { runVectors } from './vector-runner.js';

const results = {
  node: await runVectors(node, vectors),
  web: await runVectors(web, vectors),
};
console.log(JSON.stringify(results));
