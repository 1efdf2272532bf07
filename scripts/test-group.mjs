#!/usr/bin/env node
// Runs several compiled test files in this one process, one after another (scripts/run-tests.mjs starts it with the
// files as arguments). Loading the application costs about 2 s of CPU per process; files that only start the service
// in-process share that cost here. Each file's top-level suites run in the order the files are given, one at a time,
// as Node's test runner runs a single file's. A file that fails to load becomes one failing test named after it.
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

for (const file of process.argv.slice(2)) {
  try {
    await import(pathToFileURL(resolve(file)).href);
  } catch (error) {
    test(`${file} loads`, () => {
      throw error;
    });
  }
}
