#!/usr/bin/env node
// Copies the design system's stylesheet (docs/design.md) beside its compiled module: tsc copies no CSS.
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const out = join(root, 'dist', 'src', 'common', 'design');
mkdirSync(out, { recursive: true });
copyFileSync(join(root, 'src', 'common', 'design', 'design.css'), join(out, 'design.css'));
