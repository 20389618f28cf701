// What the runnable examples share. See README.md.

export { useExampleServer } from './example-server.js';
export { runScript, scratchDataDir } from './processes.js';
export { operator, startServer } from './server-process.js';
export { checkSubscriber } from './subscriber-check.js';
