#!/usr/bin/env node
// Fails when SQL outside src/users names a table the users domain owns, or outside src/agents one the agents feature
// owns (docs/architecture.md, "Data"):
// such a statement breaks silently when the domain renames a column, since the compiler cannot see it.
// Also fails when code outside the owner reads or writes those tables through TypeORM with one of the owner's
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
];

/** The tables of the agents feature (src/agents). */
export const AGENTS_TABLES = ['agent_registration_tokens', 'dynamic_clients', 'agent_consents', 'external_resources'];

/** Each owner's folder under src and its tables. */
const OWNERS = [
  { folder: 'users', tables: USERS_TABLES },
  { folder: 'agents', tables: AGENTS_TABLES },
  { folder: 'signals', tables: ['ssf_streams', 'ssf_sets', 'ssf_stream_subjects', 'ssf_subscriptions', 'ssf_jtis_seen'] },
  { folder: 'branding', tables: ['branding', 'branding_previews'] },
];

const namedTable = (tables) => new RegExp(`\\b(?:FROM|JOIN|INTO|UPDATE|TABLE)\\s+\\\\?[\`"']?(${tables.join('|')})\\b`, 'i');
/** Prose in comments ("comes from users …") is not SQL. */
const COMMENT_LINE = /^\s*(?:\/\/|\/\*|\*)/;

const root = process.argv[2] ?? new URL('..', import.meta.url).pathname;
const src = join(root, 'src');

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

/** The entity classes declared under an owner's folder (`@Entity(…)` then `export class Name`). */
function ownedEntities(dir) {
  const names = [];
  if (!existsSync(dir)) return names;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) names.push(...ownedEntities(path));
    else if (name.endsWith('.ts')) {
      for (const match of readFileSync(path, 'utf8').matchAll(/@Entity\([^)]*\)\s*export class (\w+)/g)) names.push(match[1]);
    }
  }
  return names;
}

const entityUse = (entities) =>
  entities.length === 0
    ? undefined
    : new RegExp(`(?:\\.(?:${ENTITY_USES.join('|')})(?:<[^>]*>)?\\(\\s*|@(?:${RELATIONS.join('|')})\\(\\s*\\(\\)\\s*=>\\s*)(${entities.join('|')})\\b`, 'g');

function* sourceFiles(dir, owner) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const inRepo = relative(src, path).split(sep);
    if (statSync(path).isDirectory()) {
      // The owner's own folder, and migrations (which create and change these tables).
      if ((inRepo.length === 1 && name === owner) || name === 'migrations') continue;
      yield* sourceFiles(path, owner);
    } else if (name.endsWith('.ts')) yield path;
  }
}

const offenders = [];
const entityOffenders = [];
for (const { folder, tables } of OWNERS) {
  const named = namedTable(tables);
  const use = entityUse(ownedEntities(join(src, folder)));
  for (const file of sourceFiles(src, folder)) {
    const text = readFileSync(file, 'utf8');
    const lines = text.split('\n');
    lines.forEach((line, index) => {
      const match = !COMMENT_LINE.test(line) && named.exec(line);
      if (match) offenders.push(`${relative(root, file)}:${index + 1}: ${match[1]} — ${line.trim()} (src/${folder})`);
    });
    // Over the whole text: a call's entity may stand on the line after its name.
    for (const match of use ? text.matchAll(use) : []) {
      const lineNumber = text.slice(0, match.index).split('\n').length;
      const line = lines[lineNumber - 1];
      if (!COMMENT_LINE.test(line)) entityOffenders.push(`${relative(root, file)}:${lineNumber}: ${match[1]} — ${line.trim()} (src/${folder})`);
    }
  }
}

if (offenders.length > 0) {
  console.error(`SQL on tables owned by another module outside it (move it behind a query function of the owner named):\n${offenders.join('\n')}`);
}
if (entityOffenders.length > 0) {
  console.error(`TypeORM on entities owned by another module outside it (move it behind a query function of the owner named):\n${entityOffenders.join('\n')}`);
}
if (offenders.length > 0 || entityOffenders.length > 0) process.exit(1);
console.log(`table ownership: no SQL or TypeORM on the tables of ${OWNERS.map((o) => `src/${o.folder}`).join(', ')} outside their owner`);
