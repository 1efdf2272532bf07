import { closest, distance } from 'fastest-levenshtein';

/**
 * Variables in the environment that look like a setting but are none, each with the setting it most likely meant:
 * `DATABSE_URL` set and `DATABASE_URL` not leaves the service on its default SQLite file without a word otherwise
 * (docs/operations.md, "Start-up").
 *
 * A name counts as a slip when it is within one edit of a setting (two for names longer than eight characters), so the
 * environment's own variables (PATH, HOME, HOSTNAME…) are never taken for one.
 */
export function misspelledVariables(env: Record<string, string | undefined>, settings: ReadonlySet<string>): string[] {
  const known = [...settings];
  const warnings: string[] = [];
  for (const name of Object.keys(env).sort()) {
    if (settings.has(name) || !/^[A-Z][A-Z0-9_]*$/.test(name)) continue;
    const meant = closest(name, known);
    const edits = distance(name, meant);
    const close = edits <= (meant.length > 8 ? 2 : 1);
    // Our own prefix is never the environment's: any PORTCULLIS_ name that is not a setting is a slip.
    if (close || name.startsWith('PORTCULLIS_'))
      warnings.push(`${name} is not a setting of Portcullis: did you mean ${meant}?${env[meant] === undefined ? ` (${meant} is not set)` : ''}`);
  }
  return warnings;
}
