import type { ChildProcess } from 'node:child_process';
import { connect } from 'node:net';

/**
 * Until `child` (a counterpart the test started: slapd, samba…) accepts TCP connections on `host:port`; its output in
 * the error when it exits first or does not listen within `withinMs` (then it is killed).
 */
export async function untilListening(
  counterpart: { name: string; child: ChildProcess; output: () => string },
  host: string,
  port: number,
  withinMs: number,
): Promise<void> {
  const { name, child, output } = counterpart;
  const deadline = Date.now() + withinMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited during start-up:\n${output()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, host);
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${name} did not listen within ${withinMs / 1000} s:\n${output()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
