#!/usr/bin/env node
// Fails when SQL outside src/users names a table the users domain owns (docs/architecture.md, "Data"):
// such a statement breaks silently when the domain renames a column, since the compiler cannot see it.
// Usage: node scripts/check-table-ownership.mjs [root]   (root defaults to the repository; scans root/src)
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** The tables of the users domain (its entities, groups, and the kept counts and removed ids). */
export const USERS_TABLES = [
  'users',
  'user_contacts',
  'organizations',
  'memberships',
  'projects',
  'applications',
  'machine_secrets',
  'public_keys',
  'personal_access_tokens',
  'features',
  'instance',
  'login_policies',
  'org_groups',
  'group_members',
  'project_roles',
  'project_grants',
  'user_factors',
  'recovery_codes',
  'mfa_offer_skips',
  'org_user_counts',
  'removed_users',
  'user_codes',
];

const NAMED_TABLE = new RegExp(`\\b(?:FROM|JOIN|INTO|UPDATE|TABLE)\\s+\\\\?[\`"']?(${USERS_TABLES.join('|')})\\b`, 'i');
/** Prose in comments ("comes from users …") is not SQL. */
const COMMENT_LINE = /^\s*(?:\/\/|\/\*|\*)/;

const root = process.argv[2] ?? new URL('..', import.meta.url).pathname;
const src = join(root, 'src');

function* sourceFiles(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const inRepo = relative(src, path).split(sep);
    if (statSync(path).isDirectory()) {
      // The owner's own folder, and migrations (which create and change these tables).
      if ((inRepo.length === 1 && name === 'users') || name === 'migrations') continue;
      yield* sourceFiles(path);
    } else if (name.endsWith('.ts')) yield path;
  }
}

const offenders = [];
for (const file of sourceFiles(src)) {
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, index) => {
      const match = !COMMENT_LINE.test(line) && NAMED_TABLE.exec(line);
      if (match) offenders.push(`${relative(root, file)}:${index + 1}: ${match[1]} — ${line.trim()}`);
    });
}

if (offenders.length > 0) {
  console.error(`SQL on tables owned by src/users outside it (move it behind a function in src/users/queries):\n${offenders.join('\n')}`);
  process.exit(1);
}
console.log('table ownership: no SQL on src/users tables outside src/users');
