import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before } from 'node:test';
import { useService } from '../../support/fixtures.js';
import { freePort } from '../../support/service.js';
import type { TestService } from '../../support/service.js';

/** One message as MailDev's REST API gives it. */
export interface ReceivedMail {
  id: string;
  subject: string;
  text: string;
  html: string;
  messageId: string;
  to: { address: string }[];
  from: { address: string; name: string }[];
}

export interface MailServer {
  /** `smtp://127.0.0.1:<port>` for SMTP_URL. */
  smtpUrl: string;
  /** Every message received so far (oldest first). */
  messages(): Promise<ReceivedMail[]>;
  /** Waits until a message to `address` matching `accept` has arrived; fails after `timeoutMs`. */
  waitFor(address: string, accept?: (m: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail>;
  /** Stops the server (kill by PID); `start` brings it back on the same ports, keeping what it received. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

const MAILDEV = join(dirname(createRequire(import.meta.url).resolve('maildev/package.json')), 'bin', 'maildev');

/** MailDev (npm `maildev`), a real SMTP server no one here wrote, on free loopback ports, storing mail in a temp dir. */
export async function startMailServer(): Promise<MailServer> {
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-maildev-'));
  const [smtpPort, webPort] = [await freePort(), await freePort()];
  const api = `http://127.0.0.1:${webPort}`;
  let child: ChildProcess | undefined;
  let output = '';

  const start = async () => {
    output = '';
    const args = [MAILDEV, '--smtp', String(smtpPort), '--web', String(webPort), '--ip', '127.0.0.1', '--web-ip', '127.0.0.1', '--mail-directory', dir];
    child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    const deadline = Date.now() + 20_000;
    // Up when both listeners said so (MailDev logs each).
    while (!(output.includes('SMTP Server running') && output.includes('webapp running'))) {
      if (child.exitCode !== null) throw new Error(`maildev exited:\n${output}`);
      if (Date.now() > deadline) throw new Error(`maildev did not start within 20 s:\n${output}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((r) => running.on('exit', r));
    running.kill('SIGKILL');
    await exited;
  };
  const messages = async () => (await (await fetch(`${api}/email`)).json()) as ReceivedMail[];

  await start();
  return {
    smtpUrl: `smtp://127.0.0.1:${smtpPort}`,
    messages,
    async waitFor(address, accept = () => true, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = (await messages()).find((m) => m.to.some((t) => t.address === address) && accept(m));
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no mail to ${address} within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    stop,
    start,
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The one-time link of a message (its text part), as a person would click it. */
export function linkIn(mail: Pick<ReceivedMail, 'text'>): string {
  const match = /https?:\/\/\S+\?code=\S+/.exec(mail.text);
  if (!match) throw new Error(`no link in the message:\n${mail.text}`);
  return match[0];
}

/**
 * A MailDev server and a service sending to it, for the enclosing suite: the server starts first (its hook is
 * registered before the service's), so the service gets its address in SMTP_URL. Both handles are filled in `before`.
 */
export function useServiceWithMail(env: Record<string, string> = {}): { svc: TestService; mail: MailServer } {
  const mail = {} as MailServer;
  const serviceEnv: Record<string, string> = { MAIL_POLL_MS: '50', ...env };
  before(async () => {
    Object.assign(mail, await startMailServer());
    serviceEnv.SMTP_URL = mail.smtpUrl;
  });
  const svc = useService(serviceEnv);
  after(() => mail.close?.());
  return { svc, mail };
}
