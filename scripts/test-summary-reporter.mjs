// A node:test reporter used by scripts/run-tests.mjs beside the spec reporter. It writes one JSON object: for each
// test file the process ran, its test counts (leaf tests, as Node's own summary counts them: suites are not tests),
// its skipped suites and the time its top-level tests and suites took; for the whole process, its CPU time and peak
// memory, and the CPU of the child processes it started and waited for; and for each failed test, its name and the
// start of its error, which scripts/run-tests.mjs prints again at the very end (CI keeps only the tail of its log).
import { readFileSync } from 'node:fs';

export default async function* summary(source) {
  const files = {};
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { data } = event;
    const file = (files[data.file ?? '(unknown)'] ??= { tests: 0, pass: 0, fail: 0, skipped: 0, todo: 0, skippedSuites: 0, ms: 0, failures: [] });
    if (event.type === 'test:fail' && !data.skip && !data.todo) recordFailure(file, data);
    if (data.nesting === 0) file.ms += data.details?.duration_ms ?? 0;
    if (data.details?.type === 'suite') {
      // A skipped suite reports none of its tests (and Node's own summary does not count them).
      if (data.skip) file.skippedSuites++;
      // A suite whose hook failed reports the failure on the suite itself.
      if (event.type === 'test:fail' && data.details.error?.failureType === 'hookFailed') file.fail++;
      continue;
    }
    file.tests++;
    if (data.skip) file.skipped++;
    else if (data.todo) file.todo++;
    else if (event.type === 'test:pass') file.pass++;
    else file.fail++;
  }
  const cpu = process.cpuUsage();
  yield `${JSON.stringify({ files, cpuMs: Math.round((cpu.user + cpu.system) / 1000), childrenCpuMs: childrenCpuMs(), maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024) })}\n`;
}

/** A failure's own error (a test's is wrapped in `cause`), without the stack, as far as its first 2,000 characters. */
const MESSAGE_CHARS = 2_000;

function recordFailure(file, data) {
  const error = data.details?.error;
  // A suite fails as well when one of its tests failed; only its own hook failures are worth repeating.
  if (data.details?.type === 'suite' && error?.failureType !== 'hookFailed') return;
  const own = error?.cause ?? error;
  const message = own instanceof Error ? own.message : String(own ?? 'no error reported');
  file.failures.push({ name: data.name, message: message.length > MESSAGE_CHARS ? `${message.slice(0, MESSAGE_CHARS)} …` : message });
}

/**
 * CPU of the child processes this process started and waited for (services, browsers, Apache), from
 * /proc/self/stat's cutime and cstime (proc(5), in Linux's fixed 100 ticks a second); null where there is no /proc.
 */
function childrenCpuMs() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces; cutime and cstime are fields 16 and 17.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Math.round(((Number(fields[13]) + Number(fields[14])) * 1000) / 100);
  } catch {
    return null;
  }
}
