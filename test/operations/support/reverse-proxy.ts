import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** Debian's nginx and HAProxy (.ci/run installs them). */
export const NGINX = '/usr/sbin/nginx';
export const HAPROXY = '/usr/sbin/haproxy';

/** Where the recipe puts things, replaced by the test's own: the snippet is otherwise used as docs/operations.md shows it. */
export interface ProxySite {
  /** The loopback port the proxy listens on with TLS (the port of PUBLIC_URL). */
  port: number;
  /** The service's port on loopback. */
  upstreamPort: number;
  cert: string;
  key: string;
  /** A temporary directory for the proxy's own files. */
  dir: string;
}

export interface RunningProxy {
  name: string;
  stop(): Promise<void>;
  log(): string;
}

/** Replaces `from` by `to` in a recipe, and fails when the recipe no longer holds `from` (the docs changed: so must this test). */
function substitute(text: string, from: string, to: string): string {
  if (!text.includes(from)) throw new Error(`the recipe no longer holds ${JSON.stringify(from)}`);
  return text.split(from).join(to);
}

/** deploy/nginx/portcullis.conf inside the smallest nginx.conf a non-daemon nginx needs. */
export async function startNginx(site: ProxySite): Promise<RunningProxy> {
  let snippet = readFileSync('deploy/nginx/portcullis.conf', 'utf8');
  snippet = substitute(snippet, 'server 127.0.0.1:8080;', `server 127.0.0.1:${site.upstreamPort};`);
  snippet = substitute(snippet, 'listen 443 ssl;', `listen 127.0.0.1:${site.port} ssl;`);
  snippet = substitute(snippet, '/etc/ssl/portcullis/fullchain.pem', site.cert);
  snippet = substitute(snippet, '/etc/ssl/portcullis/privkey.pem', site.key);
  // nginx's workers run as nobody when started by root: they need to reach their temporary directories.
  const temp = join(site.dir, 'nginx-temp');
  mkdirSync(temp, { recursive: true });
  chmodSync(site.dir, 0o755);
  chmodSync(temp, 0o777);
  writeFileSync(join(site.dir, 'portcullis.conf'), snippet);
  const log = join(site.dir, 'nginx-error.log');
  const conf = join(site.dir, 'nginx.conf');
  writeFileSync(
    conf,
    [
      'daemon off;',
      'worker_processes 1;',
      `pid ${join(site.dir, 'nginx.pid')};`,
      `error_log ${log} warn;`,
      'events { worker_connections 64; }',
      'http {',
      '  access_log off;',
      ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((kind) => `  ${kind}_temp_path ${join(temp, kind)};`),
      `  include ${join(site.dir, 'portcullis.conf')};`,
      '}',
      '',
    ].join('\n'),
  );
  const child = spawn(NGINX, ['-c', conf, '-p', site.dir], { stdio: 'ignore' });
  return running('nginx', child, site.port, () => (existsSync(log) ? readFileSync(log, 'utf8') : ''));
}

/** deploy/haproxy/portcullis.cfg after a global section of the test's, in the foreground (-db). */
export async function startHaproxy(site: ProxySite): Promise<RunningProxy> {
  let snippet = readFileSync('deploy/haproxy/portcullis.cfg', 'utf8');
  const pem = join(site.dir, 'haproxy.pem');
  writeFileSync(pem, readFileSync(site.cert, 'utf8') + readFileSync(site.key, 'utf8'));
  snippet = substitute(snippet, 'bind :443 ssl crt /etc/haproxy/certs/id.example.com.pem', `bind 127.0.0.1:${site.port} ssl crt ${pem}`);
  snippet = substitute(snippet, 'server portcullis1 127.0.0.1:8080 check', `server portcullis1 127.0.0.1:${site.upstreamPort} check`);
  const global = join(site.dir, 'global.cfg');
  writeFileSync(global, 'global\n    maxconn 256\n');
  const cfg = join(site.dir, 'portcullis.cfg');
  writeFileSync(cfg, snippet);
  let output = '';
  const child = spawn(HAPROXY, ['-f', global, '-f', cfg, '-db'], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  return running('haproxy', child, site.port, () => output);
}

async function running(name: string, child: ChildProcess, port: number, log: () => string): Promise<RunningProxy> {
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, 'SIGTERM');
    await exited;
  };
  const deadline = Date.now() + 10_000;
  while (!(await listening(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`${name} did not start listening on ${port}: ${log()}`);
    }
    await sleep(50);
  }
  return { name, stop, log };
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
