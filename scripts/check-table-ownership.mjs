#!/usr/bin/env node
// Fails when SQL outside src/users names a table the users domain owns (docs/architecture.md, "Data"):
// such a statement breaks silently when the domain renames a column, since the compiler cannot see it.
// Also fails when code outside src/users reads or writes those tables through TypeORM with one of the domain's
// entities (a repository, a find or write of the entity manager, a query builder's join, from or into, a relation):
// such a statement names no table, yet reaches into the domain's rows as plain SQL would.
// Usage: node scripts/check-table-ownership.mjs [root]   (root defaults to the repository; scans root/src)
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
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
  'password_history',
  'user_codes',
  'saml_applications',
  'agent_registration_tokens',
  'dynamic_clients',
];

const NAMED_TABLE = new RegExp(`\\b(?:FROM|JOIN|INTO|UPDATE|TABLE)\\s+\\\\?[\`"']?(${USERS_TABLES.join('|')})\\b`, 'i');
/** Prose in comments ("comes from users …") is not SQL. */
const COMMENT_LINE = /^\s*(?:\/\/|\/\*|\*)/;

const root = process.argv[2] ?? new URL('..', import.meta.url).pathname;
const src = join(root, 'src');
const users = join(src, 'users');

/** What takes an entity class and reaches its table: the entity manager, repositories, query builders, relations. */
const ENTITY_USES = [
  'getRepository',
  'createQueryBuilder',
  'find',
  'findBy',
  'findOne',
  'findOneBy',
  'findOneOrFail',
  'findOneByOrFail',
  'findAndCount',
  'findAndCountBy',
  'count',
  'countBy',
  'exists',
  'existsBy',
  'sum',
  'average',
  'minimum',
  'maximum',
  'insert',
  'update',
  'upsert',
  'delete',
  'save',
  'remove',
  'softDelete',
  'restore',
  'increment',
  'decrement',
  'clear',
  'from',
  'into',
  'innerJoin',
  'leftJoin',
  'innerJoinAndSelect',
  'leftJoinAndSelect',
  'innerJoinAndMapOne',
  'innerJoinAndMapMany',
  'leftJoinAndMapOne',
  'leftJoinAndMapMany',
];
const RELATIONS = ['ManyToOne', 'OneToMany', 'OneToOne', 'ManyToMany'];

/** The entity classes declared under src/users (`@Entity(…)` then `export class Name`). */
function usersEntities(dir) {
  const names = [];
  if (!existsSync(dir)) return names;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) names.push(...usersEntities(path));
    else if (name.endsWith('.ts')) {
      for (const match of readFileSync(path, 'utf8').matchAll(/@Entity\([^)]*\)\s*export class (\w+)/g)) names.push(match[1]);
    }
  }
  return names;
}

const ENTITIES = usersEntities(users);
const ENTITY_USE =
  ENTITIES.length === 0
    ? undefined
    : new RegExp(`(?:\\.(?:${ENTITY_USES.join('|')})(?:<[^>]*>)?\\(\\s*|@(?:${RELATIONS.join('|')})\\(\\s*\\(\\)\\s*=>\\s*)(${ENTITIES.join('|')})\\b`, 'g');

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
const entityOffenders = [];
for (const file of sourceFiles(src)) {
  const text = readFileSync(file, 'utf8');
  const lines = text.split('\n');
  lines.forEach((line, index) => {
    const match = !COMMENT_LINE.test(line) && NAMED_TABLE.exec(line);
    if (match) offenders.push(`${relative(root, file)}:${index + 1}: ${match[1]} — ${line.trim()}`);
  });
  // Over the whole text: a call's entity may stand on the line after its name.
  for (const match of ENTITY_USE ? text.matchAll(ENTITY_USE) : []) {
    const lineNumber = text.slice(0, match.index).split('\n').length;
    const line = lines[lineNumber - 1];
    if (!COMMENT_LINE.test(line)) entityOffenders.push(`${relative(root, file)}:${lineNumber}: ${match[1]} — ${line.trim()}`);
  }
}

if (offenders.length > 0) {
  console.error(`SQL on tables owned by src/users outside it (move it behind a function in src/users/queries):\n${offenders.join('\n')}`);
}
if (entityOffenders.length > 0) {
  console.error(`TypeORM on entities owned by src/users outside it (move it behind a function in src/users/queries):\n${entityOffenders.join('\n')}`);
}
if (offenders.length > 0 || entityOffenders.length > 0) process.exit(1);
console.log('table ownership: no SQL or TypeORM on src/users tables outside src/users');
