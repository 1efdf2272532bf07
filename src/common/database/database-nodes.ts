import { Inject, Injectable } from '@nestjs/common';
import mysql from 'mysql2/promise';
import { DataSource } from 'typeorm';
import type { AppConfig, DatabaseConfig, DatabaseNode } from '../config/config.js';
import { APP_CONFIG } from '../config/config.token.js';
import { AppLogger } from '../http/logging.js';
import { GaleraSessions, wsrepOn } from './galera.js';
import type { MysqlPool } from './galera.js';

type MysqlConfig = Extract<DatabaseConfig, { type: 'mysql' }>;

/** A node that does not answer within this long is skipped: the next one is tried. */
const PROBE_TIMEOUT_MS = 1000;

/** Galera's `wsrep_local_state` of a node that has every write of the cluster and takes requests. */
const SYNCED = '4';

/**
 * True when `node` takes requests: it answers, and on Galera it is Synced inside the primary component
 * (`wsrep_ready` ON, `wsrep_local_state` 4) and does not reject queries (`wsrep_reject_queries` NONE). A joining
 * node, a donor, a node cut off from its quorum and a node an operator takes out for maintenance
 * (`SET GLOBAL wsrep_reject_queries = ALL`, which leaves it Synced and ready) are skipped: they answer `SELECT 1`
 * but refuse tables (1047) or lag behind (docs/high-availability.md, "Without HAProxy: a list of hosts"). A server
 * without Galera is healthy when it answers.
 */
export async function isHealthy(database: MysqlConfig, node: DatabaseNode): Promise<boolean> {
  const url = new URL(database.url);
  let connection: mysql.Connection | undefined;
  try {
    connection = await mysql.createConnection({
      host: node.host,
      port: node.port,
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
      connectTimeout: PROBE_TIMEOUT_MS,
    });
    const [wsrep] = (await connection.query('SELECT @@wsrep_on AS wsrepOn').catch(() => [[]])) as unknown as [{ wsrepOn?: unknown }[]];
    if (!wsrepOn(wsrep[0]?.wsrepOn)) return true;
    const [states] = await connection.query("SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_ready', 'wsrep_local_state')");
    const [settings] = await connection.query("SHOW GLOBAL VARIABLES WHERE Variable_name = 'wsrep_reject_queries'");
    const rows = [states, settings].flat() as { Variable_name: string; Value: string }[];
    const status = new Map(rows.map((row) => [row.Variable_name, row.Value]));
    return status.get('wsrep_ready') === 'ON' && status.get('wsrep_local_state') === SYNCED && status.get('wsrep_reject_queries') === 'NONE';
  } catch {
    return false;
  } finally {
    connection?.destroy();
  }
}

/** The first healthy node in the order the URL lists them, skipping `except`; undefined when none is. */
export async function firstHealthyNode(database: MysqlConfig, except?: DatabaseNode): Promise<DatabaseNode | undefined> {
  for (const node of database.nodes) {
    if (except && sameNode(node, except)) continue;
    if (await isHealthy(database, node)) return node;
  }
  return undefined;
}

/**
 * The configuration with `url` naming the node to start on: with a list of hosts, the first healthy one
 * (else the first listed, whose error then tells the operator what is wrong); otherwise unchanged. Every
 * process picks in the same order, so all of them write through one node while it is healthy, as HAProxy's
 * `balance first` does (fewer certification conflicts; docs/high-availability.md).
 */
export async function onHealthyNode(database: DatabaseConfig): Promise<DatabaseConfig> {
  if (database.type !== 'mysql' || database.nodes.length < 2) return database;
  const node = (await firstHealthyNode(database)) ?? database.nodes[0]!;
  return { ...database, url: urlOf(database, node) };
}

function urlOf(database: MysqlConfig, node: DatabaseNode): string {
  const url = new URL(database.url);
  url.hostname = node.host.includes(':') ? `[${node.host}]` : node.host;
  url.port = String(node.port);
  return url.toString();
}

function sameNode(a: DatabaseNode, b: DatabaseNode): boolean {
  return a.host === b.host && a.port === b.port;
}

interface MysqlDriverInternals {
  options: { host: string; port: number };
  pool: MysqlPool & { end(callback: (error?: Error) => void): void };
  createConnectionOptions(options: object, credentials: object): object;
  createPool(connectionOptions: object): Promise<MysqlDriverInternals['pool']>;
}

/**
 * Moves the process to another node when its own stops taking requests (DATABASE_URL with a list of hosts):
 * the outage reporter calls `moveIfUnhealthy` when a request meets it and at every probe until the database
 * answers again. The new pool replaces the driver's; connections of the old one are closed. TypeORM has no
 * failover of its own (its replication option has one fixed writer), and mysql2's PoolCluster only skips
 * nodes that refuse connections, not a Galera node that accepts them outside the primary component.
 */
@Injectable()
export class DatabaseNodes {
  private moving: Promise<void> | undefined;

  constructor(
    private readonly dataSource: DataSource,
    private readonly galera: GaleraSessions,
    private readonly logger: AppLogger,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  moveIfUnhealthy(): Promise<void> {
    const database = this.config.database;
    if (database.type !== 'mysql' || database.nodes.length < 2) return Promise.resolve();
    this.moving ??= this.move(database)
      .catch((error: unknown) => this.logger.root.error(`database node change failed: ${String(error)}`))
      .finally(() => (this.moving = undefined));
    return this.moving;
  }

  /** The node this process uses now. */
  get current(): DatabaseNode {
    const { host, port } = this.driver.options;
    return { host, port: Number(port) };
  }

  private get driver(): MysqlDriverInternals {
    return this.dataSource.driver as unknown as MysqlDriverInternals;
  }

  private async move(database: MysqlConfig): Promise<void> {
    const from = this.current;
    if (await isHealthy(database, from)) return;
    const to = await firstHealthyNode(database, from);
    if (!to) return;
    const driver = this.driver;
    const pool = await driver.createPool(driver.createConnectionOptions(driver.options, { ...driver.options, host: to.host, port: to.port }));
    await this.galera.prepare(pool);
    const old = driver.pool;
    driver.pool = pool;
    driver.options.host = to.host;
    driver.options.port = to.port;
    old.end(() => undefined);
    this.logger.root.warn(`database node ${from.host}:${from.port} is unhealthy; now using ${to.host}:${to.port}`);
  }
}
