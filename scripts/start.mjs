#!/usr/bin/env node
// `npm start`: serves from the compiled output, compiling first only when a source file is newer than
// the last build (a fresh clone, or after an edit; scripts/build-stamp.mjs). Compiling takes about 20 s; starting
// about one.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildIfStale } from './build-stamp.mjs';

const root = new URL('..', import.meta.url).pathname;
buildIfStale();
await import(pathToFileURL(join(root, 'dist', 'src', 'main.js')).href);
