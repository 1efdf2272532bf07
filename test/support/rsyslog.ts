import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';

/** Debian's rsyslogd (package rsyslog, with rsyslog-openssl for TLS). */
const RSYSLOGD = '/usr/sbin/rsyslogd';

export interface Rsyslog {
  port: number;
  /** The file rsyslog writes every message it receives to, one line each, as RFC 5424. */
  file: string;
  start(): Promise<void>;
  /** Stops it by its PID and waits until it has exited. */
  stop(): Promise<void>;
  lines(): string[];
}

export function rsyslogAvailable(): boolean {
  return existsSync(RSYSLOGD);
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * An rsyslog receiving RFC 5425 (syslog over TLS, octet-counted) on a free loopback port with the certificate `tls`
 * names, writing each message to a file in `dir`. Started and stopped by the test, in `dir` alone.
 */
export async function rsyslogReceiver(dir: string, tls: { ca: string; key: string; cert: string }): Promise<Rsyslog> {
  const port = await freePort();
  const file = join(dir, 'audit.log');
  const pidFile = join(dir, 'rsyslogd.pid');
  const conf = join(dir, 'rsyslog.conf');
  // One worker on the main queue: with more, rsyslog starts a second worker once messages pile up (a held stream
  // catching up), and the two write their batches to the file in either order, which verification reads as a gap.
  writeFileSync(
    conf,
    `global(workDirectory="${dir}" maxMessageSize="64k"
       defaultNetstreamDriver="ossl"
       defaultNetstreamDriverCAFile="${tls.ca}" defaultNetstreamDriverCertFile="${tls.cert}" defaultNetstreamDriverKeyFile="${tls.key}")
main_queue(queue.workerThreads="1")
module(load="imtcp" streamDriver.name="ossl" streamDriver.mode="1" streamDriver.authMode="anon")
template(name="line" type="string" string="%timegenerated:::date-rfc3339% %hostname% %app-name% %msgid% %msg%\\n")
ruleset(name="audit") { action(type="omfile" file="${file}" template="line" flushOnTXEnd="on" asyncWriting="off") }
input(type="imtcp" port="${port}" address="127.0.0.1" ruleset="audit")
`,
  );
  let child: ReturnType<typeof spawn> | undefined;
  let exited: Promise<void> | undefined;
  const receiver: Rsyslog = {
    port,
    file,
    async start() {
      child = spawn(RSYSLOGD, ['-n', '-f', conf, '-i', pidFile], { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      exited = new Promise((resolve) => child!.once('exit', () => resolve()));
      // Listening once a TCP connection is accepted.
      const deadline = Date.now() + 10_000;
      for (;;) {
        if (child.exitCode !== null) throw new Error(`rsyslogd exited: ${stderr}`);
        if (await accepts(port)) return;
        if (Date.now() > deadline) throw new Error(`rsyslogd does not listen on ${port}: ${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async stop() {
      if (!child || child.exitCode !== null) return;
      process.kill(child.pid!, 'SIGTERM');
      await exited;
    },
    lines() {
      return existsSync(file)
        ? readFileSync(file, 'utf8')
            .split('\n')
            .filter((l) => l !== '')
        : [];
    },
  };
  return receiver;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
