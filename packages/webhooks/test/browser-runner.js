// Loaded as a module by the page of test/browser.test.ts: runs every known-answer vector through
// the built /web entry inside the browser and keeps the outcome on window.vectorResult.
import * as web from '/dist/web.js';
import { runVectors } from '/test/vector-runner.js';

window.vectorResult = fetch('/vectors/known-answer.json')
  .then((response) => response.json())
  .then((vectors) => runVectors(web, vectors))
  .then((result) => ({ ...result, hasNode: typeof globalThis.process !== 'undefined' }));
