import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { verifyChain } from '../audit/record/chain-verifier.js';
import { CliError } from './import.command.js';

export const AUDIT_USAGE = `Usage: portcullis audit verify FILE [--from SEQUENCE]

Checks what a receiver stored of an audit stream (docs/audit-and-signals.md): syslog lines whose message is a
record (rsyslog's file), or records as JSON lines (an HTTPS receiver's). The records' sequences must run on
without a gap or a reordering, and each record's chain must follow from the one before it and its own content.
Repeats (a batch sent again) are skipped when identical.

  --from SEQUENCE   start at this sequence (a file that does not begin with the stream's first record);
                    that record's chain is trusted as the starting point

Exit status: 0 the records are whole (prints their count and the last chain value, to compare with the
next check), 1 a record is missing, out of order or altered (prints the first one found), 2 a usage error.`;

/** `portcullis audit verify FILE [--from SEQUENCE]`. */
export function runAudit(args: string[], out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr): number {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { from: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
  if (values.help) {
    out.write(`${AUDIT_USAGE}\n`);
    return 0;
  }
  const [subcommand, file, ...extra] = positionals;
  if (subcommand !== 'verify' || file === undefined || extra.length > 0) throw new CliError(`expected: audit verify FILE\n\n${AUDIT_USAGE}`);
  const from = values.from === undefined ? undefined : Number(values.from);
  if (from !== undefined && !(Number.isSafeInteger(from) && from >= 1)) throw new CliError('--from must be a sequence (a whole number from 1)');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as Error).message}`);
  }
  const verdict = verifyChain(
    text.split('\n').map((line, i) => ({ line: i + 1, text: line })),
    from,
  );
  if (!verdict.ok) {
    err.write(`${file}: ${verdict.problem}\n`);
    return 1;
  }
  const repeats = verdict.duplicates > 0 ? ` (${verdict.duplicates} repeats skipped)` : '';
  out.write(`${file}: ${verdict.count} records, sequence ${verdict.first} to ${verdict.last}, whole${repeats}; last chain ${verdict.chain}\n`);
  return 0;
}
