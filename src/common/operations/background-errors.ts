import type { DatabaseAvailability } from '../database/database-availability.js';
import { isDatabaseUnavailable } from '../database/database-unavailable.js';
import { errorMessage } from '../http/failure-causes.js';
import type { AppLogger } from '../http/logging.js';

/** Where a background worker (an outbox sender, a webhook or provisioning worker) reports what went wrong. */
export interface BackgroundReports {
  logger: AppLogger;
  availability: DatabaseAvailability;
}

/** A database outage is reported once, as requests report it (DatabaseAvailability); anything else is logged. */
export function reportBackgroundError(reports: BackgroundReports, what: string, error: unknown): void {
  if (isDatabaseUnavailable(error)) reports.availability.reportUnavailable(error);
  else reports.logger.root.error(`${what}: ${errorMessage(error)}`);
}
