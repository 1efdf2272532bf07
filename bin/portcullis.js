#!/usr/bin/env node
// The `portcullis` command (package.json "bin"); the code lives in src/cli, built to dist/.
import { main } from '../dist/src/cli/portcullis.js';

process.exitCode = await main(process.argv.slice(2));
