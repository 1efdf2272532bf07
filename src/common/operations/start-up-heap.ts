import { setFlagsFromString } from 'node:v8';

/**
 * Keeps V8's young generation at its initial size (two 1 MB semi-spaces) while the application loads, imported
 * first by main.ts so that it runs before any other module. Loading allocates fast enough that V8 doubles the
 * young generation to its largest, 32 MB, and an idle process never shrinks it again: 30 of a fresh process's
 * 182 MB resident (BENCHMARKS.md, "Performance goals, memory"). V8 reads the growth factor each time it would grow the
 * space, so setting it here applies, and `youngGenerationMayGrow` puts V8's default (2) back once the service
 * is up: under load the space grows as before, at the same CPU per request. An operator's own setting wins.
 */
const given = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((arg) => /semi[-_]space[-_]growth[-_]factor/.test(arg));
if (!given) setFlagsFromString('--semi-space-growth-factor=1');

export function youngGenerationMayGrow(): void {
  if (!given) setFlagsFromString('--semi-space-growth-factor=2');
}
