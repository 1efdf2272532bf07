/**
 * Durations in Go's `time.ParseDuration` notation, the notation of the import's `timeout` (docs/product-rules.md)
 * ("duration in Go-style notation"): a sequence of decimal numbers, each with an optional fraction
 * and a unit — `ns`, `us` (or `µs`/`μs`), `ms`, `s`, `m`, `h` — such as `300ms`, `1m30s`, `1.5h`.
 * A lone `0` is zero. Go also allows a sign; a negative timeout means nothing useful, so `-` is refused
 * here and `+` accepted.
 */
const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3, // U+00B5 micro sign
  μs: 1e-3, // U+03BC Greek mu
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

const TERM = /^(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/;

/** Milliseconds of a Go duration string, or null when it is not one. */
export function parseGoDuration(input: string): number | null {
  if (typeof input !== 'string') return null;
  let rest = input.startsWith('+') ? input.slice(1) : input;
  if (rest === '0') return 0;
  if (rest === '') return null;
  let total = 0;
  while (rest !== '') {
    const term = TERM.exec(rest);
    if (!term) return null;
    total += Number(term[1]) * UNIT_MS[term[2]];
    rest = rest.slice(term[0].length);
  }
  return Number.isFinite(total) ? total : null;
}
