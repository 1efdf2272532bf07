import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppLogger } from '../http/logging.js';
import { errorMessage } from '../http/failure-causes.js';
import { databaseUnavailable, isContention, isDatabaseUnavailable } from './database-unavailable.js';
import { DatabaseNodes } from './database-nodes.js';

/** How often an unavailable database is probed until it answers again. */
const PROBE_INTERVAL_MS = 1000;

/**
 * Tells the operator when the database goes away and when it is back: one log line per change of
 * state, however many requests fail in between (each of them has its own line with its request id).
 * A failed request reports the outage; from then on a probe runs every second until the database
 * answers. With a list of hosts in DATABASE_URL, the process moves to a healthy node meanwhile.
 */
@Injectable()
export class DatabaseAvailability {
  private probing: NodeJS.Timeout | undefined;

  constructor(
    private readonly dataSource: DataSource,
    private readonly logger: AppLogger,
    private readonly nodes: DatabaseNodes,
  ) {}

  /**
   * What an error filter answers for `error`: an outage (database unreachable or locked) becomes
   * DomainError Unavailable (503) and is reported; any other error is returned as it is. The exception
   * filters call it, so it covers handlers, guards and pipes alike, without an interceptor (and its
   * per-request Observable chain, BENCHMARKS.md "Per-request overhead") around every route.
   */
  answerFor(error: unknown): unknown {
    if (!isDatabaseUnavailable(error)) return error;
    this.reportUnavailable(error);
    return databaseUnavailable();
  }

  reportUnavailable(error: unknown): void {
    if (this.probing || isContention(error)) return;
    this.logger.root.error(`database unavailable: ${errorMessage(error)}`);
    this.probing = setInterval(() => void this.probe(), PROBE_INTERVAL_MS);
    this.probing.unref();
    void this.nodes.moveIfUnhealthy();
  }

  private async probe(): Promise<void> {
    try {
      // A table, not `SELECT 1`: a Galera node outside the primary component answers that, and refuses tables (1047).
      await this.dataSource.query('SELECT 1 FROM events LIMIT 1');
    } catch {
      // With a list of hosts, another node may take over (DatabaseNodes).
      await this.nodes.moveIfUnhealthy();
      return;
    }
    if (!this.probing) return;
    clearInterval(this.probing);
    this.probing = undefined;
    // At warn, beside the error it ends, so that a log filtered to warnings shows both.
    this.logger.root.warn('database available again');
  }
}
