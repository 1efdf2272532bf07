// The slowest files of one pass as a Markdown table, each with what its time goes to, for docs/testing.md
// (scripts/test-times.mjs --write-doc). What a file waits on is read from two things anyone can check: its source
// (does it drive a browser, start a counterpart or a service process, hash at production cost) and its run (how much
// of its elapsed time the test process and the processes it started spent on a CPU).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Source patterns and the cost they name; a file may have several. */
const KINDS = [
  ['browser', /playwright|chromium/i],
  ['counterpart', /apache2|mellon|glewlwyd|simplesamlphp|galera|haproxy|scimmy|better-auth|mcp-remote|smtp-server|slapd|rsyslog/i],
  ['process', /spawnService|spawnBehindProxy|@own-process|child_process/],
  ['hashing', /BCRYPT_COST:\s*['"]?1\d|argon2|scrypt|pbkdf2/i],
];
/** Below this share of its elapsed time on a CPU (test process and what it started), a file is mostly waiting. */
const WAITING_BELOW = 0.35;

export function slowestTable(root, record, cpuOf, count) {
  const rows = [...record.files].sort((a, b) => b.ms - a.ms).slice(0, count);
  const lines = [
    `${record.database}: the ${rows.length} slowest of ${record.files.length} files (${minutes(record.wallMs)} min elapsed, ${record.concurrency} files at a time)`,
    '',
    '| file | tests | seconds | CPU s, test process | CPU s, started processes | time goes to |',
    '|---|---:|---:|---:|---:|---|',
  ];
  for (const f of rows) {
    const cpu = cpuOf(f.file);
    lines.push(`| ${f.file} | ${f.tests} | ${seconds(f.ms)} | ${seconds(cpu.own)} | ${seconds(cpu.children)} | ${costsOf(root, f, cpu).join(', ')} |`);
  }
  return `${lines.join('\n')}\n`;
}

function costsOf(root, file, cpu) {
  const path = join(root, file.file);
  const source = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const kinds = KINDS.filter(([, pattern]) => pattern.test(source)).map(([kind]) => kind);
  if (file.ms > 0 && (cpu.own + cpu.children) / file.ms < WAITING_BELOW) kinds.push('waiting');
  // Each started service runs migrations and boots the application; a file that starts several pays it each time.
  const boots = source.match(/\b(useService|startService|spawnService|spawnBehindProxy)\(/g)?.length ?? 0;
  if (boots >= 3) kinds.unshift(`boot ×${boots}`);
  return kinds.length > 0 ? kinds : ['its own tests'];
}

const seconds = (ms) => (ms / 1000).toFixed(1);
const minutes = (ms) => (ms / 60_000).toFixed(1);
