import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import mysql from 'mysql2/promise';
import { createServer } from 'node:net';

/** Debian's MariaDB server, its Galera provider and HAProxy: .ci/run installs them (galera-4, haproxy, rsync). */
const MARIADBD = '/usr/sbin/mariadbd';
const GALERA = '/usr/lib/galera/libgalera_smm.so';
const HAPROXY = '/usr/sbin/haproxy';

/** Why the cluster cannot start here, or undefined when it can. */
export function galeraMissing(): string | undefined {
  for (const path of [MARIADBD, GALERA, HAPROXY, '/usr/bin/rsync', '/usr/bin/mariadb-install-db', '/usr/bin/mariadb'])
    if (!existsSync(path)) return `${path} is not installed`;
  return undefined;
}

interface Node {
  name: string;
  dir: string;
  port: number;
  gcommPort: number;
  child?: ChildProcess;
}

export interface GaleraCluster {
  /** `mysql://root@127.0.0.1:<haproxy>/<database>`: HAProxy in front, sending every connection to the first node that is Synced. */
  url: string;
  /** One node's own address (0-based), bypassing HAProxy. */
  nodeUrl(index: number): string;
  /** `kill -9` of a node's mariadbd. */
  kill(index: number): Promise<void>;
  /** Starts a killed node again; it rejoins (IST or SST from a donor) and is Synced when this resolves. */
  restart(index: number): Promise<void>;
  /** Cuts a node off from the others (Galera `gmcast.isolate`), or lets it rejoin; it is Synced again when this resolves. */
  isolate(index: number, isolated: boolean): Promise<void>;
  /** A node left alone (non-Primary) becomes a primary component of its own again (Galera `pc.bootstrap`). */
  bootstrapPrimary(index: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Three MariaDB Galera nodes and HAProxy on free loopback ports in a temp dir (docs/high-availability.md):
 * the first node bootstraps the cluster, the others join by rsync SST. mariadbd runs as `mysql` (rsync's SST
 * daemon, started by root, would drop to `nobody`), so the temp dir is opened for it. Everything is stopped by PID.
 */
export async function startGaleraCluster(database: string, size = 3): Promise<GaleraCluster> {
  const root = mkdtempSync(join(tmpdir(), 'portcullis-galera-'));
  chmodSync(root, 0o755);
  const nodes: Node[] = [];
  for (let i = 0; i < size; i++) nodes.push({ name: `node${i + 1}`, dir: join(root, `node${i + 1}`), port: await stablePort(), gcommPort: await stablePort() });
  const gcomm = nodes.map((n) => `127.0.0.1:${n.gcommPort}`).join(',');
  const asMysql = userInfo().uid === 0;
  const owner = asMysql
    ? { uid: Number(execFileSync('id', ['-u', 'mysql']).toString()), gid: Number(execFileSync('id', ['-g', 'mysql']).toString()) }
    : undefined;
  for (const node of nodes) {
    mkdirSync(join(node.dir, 'data'), { recursive: true });
    writeFileSync(join(node.dir, 'my.cnf'), nodeConfig(node, gcomm, await stablePort(), await stablePort(), asMysql));
  }
  const initSql = join(root, 'init.sql');
  writeFileSync(initSql, `CREATE USER IF NOT EXISTS 'root'@'127.0.0.1';\nGRANT ALL ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION;\n`);
  if (owner) chownTree(root, owner);
  execFileSync('mariadb-install-db', [`--defaults-file=${join(nodes[0].dir, 'my.cnf')}`, '--auth-root-authentication-method=normal', '--skip-test-db'], {
    stdio: 'ignore',
  });

  const start = async (node: Node, extra: string[] = []) => {
    node.child = spawn(MARIADBD, [`--defaults-file=${join(node.dir, 'my.cnf')}`, ...extra], { stdio: 'ignore' });
    await waitSynced(node);
  };
  const haproxyPort = await stablePort();
  let haproxy: ChildProcess | undefined;
  try {
    await start(nodes[0], ['--wsrep-new-cluster', `--init-file=${initSql}`]);
    // One joiner at a time: both asking the same donor for SST at once makes one wait its turn anyway.
    for (const node of nodes.slice(1)) await start(node);
    const admin = await mysql.createConnection({ host: '127.0.0.1', port: nodes[0].port, user: 'root' });
    await admin.query(`CREATE DATABASE IF NOT EXISTS \`${database}\``);
    await admin.end();
    const check = join(root, 'galera-check.sh');
    writeFileSync(check, GALERA_CHECK, { mode: 0o755 });
    const cfg = join(root, 'haproxy.cfg');
    writeFileSync(cfg, haproxyConfig(haproxyPort, nodes, check));
    haproxy = spawn(HAPROXY, ['-f', cfg, '-db'], { stdio: 'ignore' });
    await waitListening(haproxyPort);
  } catch (error) {
    await stopAll(nodes, haproxy);
    throw new Error(`the Galera cluster did not start: ${String(error)}\n${logTail(nodes)}`);
  }

  return {
    url: `mysql://root@127.0.0.1:${haproxyPort}/${database}`,
    nodeUrl: (index) => `mysql://root@127.0.0.1:${nodes[index].port}/${database}`,
    async kill(index) {
      await killNode(nodes[index]);
    },
    async restart(index) {
      try {
        await start(nodes[index]);
      } catch (error) {
        throw new Error(`${String(error)}\n${logTail(nodes)}`);
      }
    },
    async isolate(index, isolated) {
      const c = await mysql.createConnection({ host: '127.0.0.1', port: nodes[index].port, user: 'root' });
      try {
        await c.query(`SET GLOBAL wsrep_provider_options = 'gmcast.isolate=${isolated ? 1 : 0}'`);
      } finally {
        await c.end();
      }
      if (!isolated) await waitSynced(nodes[index]);
    },
    async bootstrapPrimary(index) {
      const c = await mysql.createConnection({ host: '127.0.0.1', port: nodes[index].port, user: 'root' });
      try {
        await c.query(`SET GLOBAL wsrep_provider_options = 'pc.bootstrap=YES'`);
      } finally {
        await c.end();
      }
      await waitSynced(nodes[index]);
    },
    async close() {
      await stopAll(nodes, haproxy);
      rmSync(root, { recursive: true, force: true });
    },
  };
}

function nodeConfig(node: Node, gcomm: string, istPort: number, sstPort: number, asMysql: boolean): string {
  return `[mysqld]
${asMysql ? 'user=mysql' : ''}
datadir=${join(node.dir, 'data')}
socket=${join(node.dir, 'mysqld.sock')}
pid-file=${join(node.dir, 'mysqld.pid')}
log-error=${join(node.dir, 'error.log')}
port=${node.port}
bind-address=127.0.0.1
skip-name-resolve
binlog_format=ROW
default_storage_engine=InnoDB
innodb_autoinc_lock_mode=2
innodb_buffer_pool_size=64M
innodb_log_file_size=16M
wsrep_on=ON
wsrep_provider=${GALERA}
wsrep_cluster_name=portcullis-test
wsrep_cluster_address=gcomm://${gcomm}
wsrep_node_address=127.0.0.1:${node.gcommPort}
wsrep_node_name=${node.name}
wsrep_provider_options=base_port=${node.gcommPort};ist.recv_addr=127.0.0.1:${istPort};gcache.size=64M;evs.keepalive_period=PT0.5S;evs.inactive_check_period=PT0.5S;evs.suspect_timeout=PT2S;evs.inactive_timeout=PT3S
wsrep_sst_method=rsync
wsrep_sst_receive_address=127.0.0.1:${sstPort}
`;
}

/**
 * HAProxy's external check of a Galera node (arguments: proxy address and port, server address and port): healthy
 * when Synced, ready and not rejecting queries. A node outside the primary component, or one an operator set to
 * `wsrep_reject_queries = ALL`, still accepts connections and answers `SELECT 1`; a TCP or `mysql-check` would keep
 * sending it every request, each refused with 1047.
 */
const GALERA_CHECK = `#!/bin/sh
status=$(mariadb --connect-timeout=1 -h "$3" -P "$4" -u root -N -B -e "SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_local_state', 'wsrep_ready'); SHOW GLOBAL VARIABLES WHERE Variable_name = 'wsrep_reject_queries'") || exit 1
echo "$status" | grep -q '^wsrep_local_state[[:space:]]4$' && echo "$status" | grep -q '^wsrep_ready[[:space:]]ON$' && echo "$status" | grep -q '^wsrep_reject_queries[[:space:]]NONE$'
`;

/**
 * Every connection to the first node that is Synced; the next one when it is not. HAProxy kills an external check
 * that has not exited after `inter`: on a loaded 2-core machine forking `mariadb` took longer than 500 ms, and two
 * such kills marked a healthy node down and shut its sessions mid-start-up. So a healthy node is checked every 1.5 s
 * with that long to answer, and once a check fails every 500 ms (`fastinter`); a node cut off from the others answers
 * at once (`wsrep_ready` OFF), so it is out of rotation within about 2.5 s.
 */
function haproxyConfig(port: number, nodes: Node[], check: string): string {
  return `global
  maxconn 512
  external-check
  insecure-fork-wanted
defaults
  mode tcp
  timeout connect 1s
  timeout client 120s
  timeout server 120s
frontend galera
  bind 127.0.0.1:${port}
  default_backend nodes
backend nodes
  balance first
  retries 2
  option redispatch 1
  option external-check
  external-check path "/usr/bin:/bin"
  external-check command ${check}
  default-server inter 1500ms fastinter 500ms fall 3 rise 2 on-marked-down shutdown-sessions
${nodes.map((n) => `  server ${n.name} 127.0.0.1:${n.port} check`).join('\n')}
`;
}

/**
 * A free loopback port below the kernel's ephemeral range. A killed node's ports stay its own while it is down: a
 * port from that range (`freePort`) could meanwhile become the local port of an outgoing connection (HAProxy's to
 * the other nodes, the tests' own) or another test process's `freePort`, and the node could not start again
 * (SQL, gcomm, IST and SST ports are all fixed in its my.cnf).
 */
async function stablePort(): Promise<number> {
  const [ephemeralLow] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
  for (let attempt = 0; ; attempt++) {
    const port = randomInt(10_000, Math.max(ephemeralLow, 10_001));
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) return port;
    if (attempt > 100) throw new Error('no free port below the ephemeral range');
  }
}

/** Until the node is a Synced member of a primary component (it may take an SST first). */
async function waitSynced(node: Node, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (node.child?.exitCode != null) throw new Error(`${node.name} exited (${node.child.exitCode})`);
    try {
      const c = await mysql.createConnection({ host: '127.0.0.1', port: node.port, user: 'root', connectTimeout: 1000 });
      try {
        const [rows] = await c.query(`SHOW STATUS WHERE Variable_name IN ('wsrep_local_state_comment', 'wsrep_cluster_status')`);
        const status = Object.fromEntries((rows as { Variable_name: string; Value: string }[]).map((r) => [r.Variable_name, r.Value]));
        if (status.wsrep_local_state_comment === 'Synced' && status.wsrep_cluster_status === 'Primary') return;
      } finally {
        await c.end();
      }
    } catch {
      // Not listening yet, or still in SST.
    }
    if (Date.now() > deadline) throw new Error(`${node.name} was not Synced within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function waitListening(port: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      const c = await mysql.createConnection({ host: '127.0.0.1', port, user: 'root', connectTimeout: 1000 });
      await c.end();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

async function killNode(node: Node): Promise<void> {
  const child = node.child;
  node.child = undefined;
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}

async function stopAll(nodes: Node[], haproxy: ChildProcess | undefined): Promise<void> {
  if (haproxy && haproxy.exitCode === null) {
    const exited = new Promise((r) => haproxy.once('exit', r));
    haproxy.kill('SIGKILL');
    await exited;
  }
  await Promise.all(nodes.map(killNode));
}

function chownTree(path: string, owner: { uid: number; gid: number }): void {
  chownSync(path, owner.uid, owner.gid);
  if (statSync(path).isDirectory()) for (const entry of readdirSync(path)) chownTree(join(path, entry), owner);
}

function logTail(nodes: Node[]): string {
  return nodes
    .map((n) => {
      const file = join(n.dir, 'error.log');
      return existsSync(file) ? `--- ${n.name}\n${readFileSync(file, 'utf8').split('\n').slice(-15).join('\n')}` : '';
    })
    .join('\n');
}
