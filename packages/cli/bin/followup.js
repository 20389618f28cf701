#!/usr/bin/env node
// The followup command. It lives outside dist/ so that npm links it at install time even in a
// fresh clone, before the package is built; it loads the built entry point.
import { main } from '../dist/main.js';

process.exitCode = await main(process.argv.slice(2));
