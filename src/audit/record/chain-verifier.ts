import { CHAIN_START, chainOf } from './audit-chain.js';

/** What a receiver stored, line by line: a syslog line whose message is a record, or a record as a JSON line. */
export interface StoredLine {
  /** 1-based line number in the file. */
  line: number;
  text: string;
}

export type Verdict = { ok: true; count: number; first: number; last: number; chain: string; duplicates: number } | { ok: false; problem: string };

interface Parsed {
  line: number;
  record: Record<string, unknown>;
  sequence: number;
  chain: string;
}

/**
 * Checks what a receiver stored of a stream (docs/audit-and-signals.md, "Verifying a stream"): the records' sequences
 * run on without a gap or a reordering, and each record's `chain` is the SHA-256 of the previous chain and its own
 * canonical JSON (audit-chain.ts), so a record edited, removed, inserted or swapped is found and named. Repeats of a
 * record (a batch sent again after a crash or an outage) are skipped when identical; a repeat that differs is an
 * alteration. Without `from`, the file must begin at the stream's first record; with it, checking starts at that
 * sequence and trusts that record's chain as the starting point.
 */
export function verifyChain(lines: Iterable<StoredLine>, from?: number): Verdict {
  const parsed: Parsed[] = [];
  for (const { line, text } of lines) {
    if (text.trim() === '') continue;
    const start = text.indexOf('{');
    if (start < 0) return { ok: false, problem: `line ${line} holds no audit record` };
    let record: unknown;
    try {
      record = JSON.parse(text.slice(start));
    } catch {
      return { ok: false, problem: `line ${line}: the record is not valid JSON (altered or cut)` };
    }
    const { sequence, chain } = (record ?? {}) as { sequence?: unknown; chain?: unknown };
    if (typeof record !== 'object' || record === null || !Number.isSafeInteger(sequence) || typeof chain !== 'string' || !/^[0-9a-f]{64}$/.test(chain))
      return { ok: false, problem: `line ${line}: the record has no valid sequence or chain (altered)` };
    parsed.push({ line, record: record as Record<string, unknown>, sequence: sequence as number, chain });
  }
  const kept = from === undefined ? parsed : parsed.filter((p) => p.sequence >= from);
  if (kept.length === 0) return { ok: false, problem: from === undefined ? 'no audit records found' : `no audit record from sequence ${from} on` };
  const seen = new Map<number, string>();
  let expected = from ?? 1;
  let previous = from === undefined || from === 1 ? CHAIN_START : undefined;
  let duplicates = 0;
  for (const [i, p] of kept.entries()) {
    const earlier = seen.get(p.sequence);
    if (earlier !== undefined) {
      const before = p.sequence === 1 ? CHAIN_START : seen.get(p.sequence - 1);
      if (earlier !== p.chain || (before !== undefined && chainOf(before, p.record) !== p.chain))
        return { ok: false, problem: `record ${p.sequence} (line ${p.line}): a repeat that differs from the record first stored (altered)` };
      duplicates++;
      continue;
    }
    if (p.sequence !== expected) {
      const later = kept.slice(i + 1).find((q) => q.sequence === expected);
      return later
        ? {
            ok: false,
            problem: `record ${expected} is out of order: line ${p.line} holds record ${p.sequence} where record ${expected} belongs (line ${later.line})`,
          }
        : p.sequence > expected
          ? { ok: false, problem: `record ${expected} is missing (removed): line ${p.line} holds record ${p.sequence}` }
          : { ok: false, problem: `record ${p.sequence} (line ${p.line}) is out of order: record ${expected} was expected` };
    }
    if (previous !== undefined && chainOf(previous, p.record) !== p.chain)
      return { ok: false, problem: `record ${p.sequence} (line ${p.line}) was altered: its chain does not follow from the record before it and its content` };
    seen.set(p.sequence, p.chain);
    previous = p.chain;
    expected++;
  }
  return { ok: true, count: seen.size, first: from ?? 1, last: expected - 1, chain: previous!, duplicates };
}
