import { AUDIT_USAGE, runAudit } from './audit.command.js';
import { CliError, IMPORT_USAGE, runImport } from './import.command.js';
import { MIGRATE_USAGE, runMigrate } from './migrate.command.js';
import { MOVING_IN_USAGE, runMovingIn } from './moving-in.command.js';

const USAGE = `Usage: portcullis <command> [options]

Commands:
  import FILE   bulk-import users with their password hashes (portcullis import --help)
  import keycloak|auth0|zitadel FILE   move a Keycloak realm, an Auth0 tenant or ZITADEL organizations in (portcullis import keycloak --help)
  migrate       apply (or with --check, list) the database migrations of this version
  audit verify FILE   check what a receiver stored of an audit stream (portcullis audit --help)

${IMPORT_USAGE}

${MOVING_IN_USAGE}

${MIGRATE_USAGE}

${AUDIT_USAGE}`;

const MOVING_IN_SOURCES = new Set(['keycloak', 'auth0', 'zitadel']);

/** The `portcullis` command line (bin/portcullis.js). */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'import':
        // `import FILE` stays the users import; `import <source> FILE` moves another service's export in.
        if (MOVING_IN_SOURCES.has(rest[0] ?? '')) return await runMovingIn(rest);
        return await runImport(rest);
      case 'migrate':
        return await runMigrate(rest);
      case 'audit':
        return runAudit(rest);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        process.stdout.write(`${USAGE}\n`);
        return command === undefined ? 1 : 0;
      default:
        throw new CliError(`unknown command "${command}"\n\n${USAGE}`);
    }
  } catch (error) {
    // parseArgs reports unknown options with a code; both are usage mistakes, not crashes.
    if (error instanceof CliError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`portcullis: ${(error as Error).message}\n`);
      return 1;
    }
    throw error;
  }
}
