import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { before, describe, it } from 'node:test';
import { rolesLacking } from '../../src/users/acting/acting-rule.js';
import type { HeldRoles } from '../../src/users/acting/acting-rule.js';
import type { Role } from '../../src/common/auth/roles.js';
import { declaredRoutes, oidcRoutes } from '../support/routes.js';
import type { TestService } from '../support/service.js';
import { GRANTS, NOT_ACTING_ON_A_USER, OPERATIONS } from './privilege-matrix/operations.js';
import type { Outcome } from './privilege-matrix/operations.js';
import { ADMIN_PASSWORD, CALLERS, NEVER_REACHING_THE_API, TARGETS, buildWorld, createCallers, createTarget } from './privilege-matrix/parties.js';
import type { Caller, RoleSet, Target, TargetName, World } from './privilege-matrix/parties.js';
import { useService } from '../support/fixtures.js';

const SNAPSHOT = new URL('../../../test/access/privilege-matrix.snapshot.json', import.meta.url);

/** `{operation: {caller: "outcome per target, in TARGETS order"}}`: the reviewed table. */
type Table = Record<string, Record<string, string>>;

const allowed = (outcome: Outcome) => /^(bulk )?2\d\d$/.test(outcome);

function held(roles: RoleSet, orgId: string): HeldRoles {
  return { instanceRoles: new Set(roles.instance as Role[]), orgRoles: new Map([[orgId, new Set(roles.org as Role[])]]) };
}

/** Everything stored about a user that an operation could change, to prove a refusal changed nothing. */
async function stateOf(svc: TestService, userId: string): Promise<string> {
  const q = (sql: string) => svc.dataSource.query(sql, [userId]);
  // At once: on MariaDB the pool runs them side by side (this runs twice for every case of the matrix).
  return JSON.stringify(
    await Promise.all([
      q('SELECT * FROM users WHERE id = ?'),
      q('SELECT * FROM memberships WHERE user_id = ? ORDER BY scope_type, scope_id'),
      q('SELECT * FROM machine_secrets WHERE user_id = ?'),
      q('SELECT * FROM personal_access_tokens WHERE user_id = ? ORDER BY id'),
      q('SELECT * FROM public_keys WHERE owner_id = ? ORDER BY id'),
      q('SELECT * FROM group_members WHERE user_id = ? ORDER BY group_id'),
      q('SELECT * FROM user_factors WHERE user_id = ? ORDER BY id'),
      q('SELECT c.* FROM recovery_codes c JOIN user_factors f ON f.id = c.factor_id WHERE f.user_id = ? ORDER BY c.code_hash'),
      q('SELECT COUNT(*) AS n FROM events WHERE aggregate_id = ?'),
    ]),
  );
}

/**
 * The privilege matrix (SECURITY.md): every caller × every target × every operation that acts on a user,
 * answered by the started service and compared with the reviewed table. Independently of the table, no
 * answer may allow what the rule forbids, an application without apiAccess reaches nothing, and a refusal
 * changes nothing. A route or grant that is neither an operation here nor classified as acting on no
 * user fails the test.
 */
describe('privilege matrix: who may act on whom', () => {
  const svc = useService({ BOOTSTRAP_ADMIN_PASSWORD: ADMIN_PASSWORD });
  let world: World;
  let callers: Caller[];
  const observed: Table = {};
  /** One target of each kind at a time; a target an operation changed is replaced by a fresh one. */
  const pool = new Map<TargetName, Target>();
  const target = async (name: TargetName) => pool.get(name) ?? pool.set(name, await createTarget(svc, world, name)).get(name)!;

  before(async () => {
    world = await buildWorld(svc);
    callers = await createCallers(svc, world);
  });

  it('classifies every route of the inventory and every grant of the discovery document', async () => {
    const covered = new Set([...OPERATIONS.flatMap((o) => o.routes), ...Object.keys(NOT_ACTING_ON_A_USER)]);
    const routes = [...declaredRoutes(svc), ...oidcRoutes(svc)].map((r) => `${r.method} ${r.path}`);
    assert.deepEqual(
      routes.filter((r) => !covered.has(r)),
      [],
      'routes without a row in the privilege matrix',
    );
    const discovery = (await (await fetch(new URL('/.well-known/openid-configuration', svc.url))).json()) as { grant_types_supported: string[] };
    assert.deepEqual(
      (discovery.grant_types_supported as string[]).filter((g) => !(g in GRANTS)),
      [],
      'grants without a row',
    );
  });

  for (const operation of OPERATIONS) {
    it(operation.name, async () => {
      observed[operation.name] = {};
      for (const caller of callers) {
        const outcomes: Outcome[] = [];
        for (const name of TARGETS) {
          const subject = await target(name);
          const before = await stateOf(svc, subject.userId);
          const outcome = await operation.run(svc, world, caller, subject);
          outcomes.push(outcome);
          const cell = `${operation.name} | ${caller.name} → ${name}: ${outcome}`;
          if (allowed(outcome)) {
            assert.ok(!NEVER_REACHING_THE_API.includes(caller.name), `${cell}: ${caller.name} reached the API`);
            assert.deepEqual(
              rolesLacking(held(caller.roles, world.org.id), held(subject.roles, world.org.id)),
              [],
              `${cell}: allowed although the caller lacks roles of the target`,
            );
            pool.delete(name);
          } else {
            assert.equal(await stateOf(svc, subject.userId), before, `${cell}: a refusal changed the target`);
          }
        }
        observed[operation.name][caller.name] = outcomes.join(' ');
      }
    });
  }

  // After an intended change: UPDATE_SNAPSHOTS=1 node scripts/run-tests.mjs privilege-matrix, then review the diff.
  it('answers as the reviewed table says', () => {
    const table: Table = { _columns: { targets: TARGETS.join(', '), callers: CALLERS.join(', ') }, ...observed };
    if (process.env.UPDATE_SNAPSHOTS === '1') writeFileSync(SNAPSHOT, JSON.stringify(table, null, 2) + '\n');
    assert.ok(existsSync(SNAPSHOT), 'no table yet: run with UPDATE_SNAPSHOTS=1 and review it');
    assert.deepEqual(table, JSON.parse(readFileSync(SNAPSHOT, 'utf8')));
  });
});
