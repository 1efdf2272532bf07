import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { PASSWORD, createApiApp, createAppKey, createHuman, createMachine, createOidcApp, createProject, postForm } from '../oidc/support/oidc-fixtures.js';
import { signIn } from '../oidc/support/sign-in.js';
import { createCaller, createOrg, searchEvents, unique, useService } from '../support/fixtures.js';
import type { TestService } from '../support/service.js';
import { humanUser, importBody, postImport } from '../import/import.helpers.js';
import { INVALID_TOKENS, badRequest, refused, row, setUpOrg, theEvent, tokenOption } from './helpers.js';
import type { OrgSetup } from './helpers.js';

const RP = 'http://127.0.0.1:65533';
const orgPath = (orgId: string) => `/admin/v1/orgs/${orgId}`;

async function count(svc: TestService, sql: string, params: unknown[]): Promise<number> {
  const [r] = await svc.dataSource.query(sql, params);
  return Number(r.n);
}

async function defaultOrgId(svc: TestService): Promise<string> {
  return (await row(svc, "SELECT id FROM organizations WHERE name = 'default'", [])).id;
}

/** docs/product-rules.md, "Changing and removing resources": organizations. */
describe('admin API: reading, renaming and removing organizations', () => {
  const svc = useService({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  let a: OrgSetup;
  let adminClientId: string;

  before(async () => {
    a = await setUpOrg(svc);
    [{ id: adminClientId }] = await svc.dataSource.query("SELECT id FROM users WHERE user_name = 'admin-client'");
  });

  it('gets one organization', async () => {
    const res = await svc.api('GET', orgPath(a.org.id), { token: svc.adminToken });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, a.org);
  });

  it('renames an organization: 200, its primary domain (and so its login names) kept, org.changed', async () => {
    const org = await createOrg(svc);
    const name = unique('Renamed Corp');
    const res = await svc.api('PATCH', orgPath(org.id), { token: svc.adminToken, body: { name } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { id: org.id, name, primaryDomain: org.primaryDomain });
    assert.equal((await row(svc, 'SELECT name FROM organizations WHERE id = ?', [org.id])).name, name);
    const event = await theEvent(svc, 'org.changed', org.id);
    assert.equal(event.aggregate.type.type, 'org');
    assert.equal(event.aggregate.resourceOwner, org.id);
    assert.equal(event.editor.userId, adminClientId);
    assert.deepEqual(event.payload, { name });
    const same = await svc.api('PATCH', orgPath(org.id), { token: svc.adminToken, body: { name } });
    assert.equal(same.status, 200);
    const empty = await svc.api('PATCH', orgPath(org.id), { token: svc.adminToken, body: {} });
    assert.deepEqual(empty.body, res.body);
    await theEvent(svc, 'org.changed', org.id);
  });

  it('keeps the name of organization default, which bare login names resolve by: 409 either way, nothing changed', async () => {
    await refused(svc, 409, () => svc.api('PATCH', orgPath(a.org.id), { token: svc.adminToken, body: { name: 'default' } }), 'taking the name');
    const res = await refused(svc, 409, async () =>
      svc.api('PATCH', orgPath(await defaultOrgId(svc)), { token: svc.adminToken, body: { name: 'not-default' } }),
    );
    assert.match(res.body.message, /default/);
  });

  it('answers bad PATCH bodies with 400 naming each field, and changes nothing', async () => {
    for (const [body, fields] of [
      [{ name: '' }, ['name']],
      [{ name: ' ' }, ['name']],
      [{ name: 1 }, ['name']],
      [{ name: 'x'.repeat(201) }, ['name']],
      [{ primaryDomain: 'evil.example' }, ['primaryDomain']],
    ] as const) {
      await badRequest(svc, [...fields], () => svc.api('PATCH', orgPath(a.org.id), { token: svc.adminToken, body }), JSON.stringify(body));
    }
  });

  it('answers 401 without a valid token, 403 below IAM_OWNER, 404 for unknown organizations; nothing changed', async () => {
    const routes = [
      ['GET', orgPath(a.org.id)],
      ['PATCH', orgPath(a.org.id), { name: 'x' }],
      ['DELETE', orgPath(a.org.id)],
    ] as const;
    for (const [method, path, body] of routes) {
      for (const token of INVALID_TOKENS) await refused(svc, 401, () => svc.api(method, path, { ...tokenOption(token), body }), `${method} ${path}`);
      // Even the organization's own ORG_OWNER may not read, rename or remove it.
      for (const caller of [a.owner, a.manager, a.member])
        await refused(svc, 403, () => svc.api(method, path, { token: caller.token, body }), `${method} ${path}`);
      await refused(svc, 404, () => svc.api(method, orgPath(randomUUID()), { token: svc.adminToken, body }), `${method} unknown`);
    }
  });

  it('refuses to remove organization default: 409, nothing changed', async () => {
    const res = await refused(svc, 409, async () => svc.api('DELETE', orgPath(await defaultOrgId(svc)), { token: svc.adminToken }));
    assert.match(res.body.message, /default/);
  });

  it('removes an organization with everything it owns, its users the way removing a user does, each with its event', async () => {
    const org = await setUpOrg(svc);
    const id = org.org.id;
    const project = await createProject(svc, id);
    const web = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' }, RP);
    const api = await createApiApp(svc, project, 'private_key_jwt');
    await createAppKey(svc, api);
    const human = await createHuman(svc, id);
    const { tokens } = await signIn(svc, {
      clientId: web.clientId,
      clientSecret: web.clientSecret,
      redirectUri: `${RP}/cb`,
      loginName: `${human.userName}@${org.org.primaryDomain}`,
      password: PASSWORD,
    });
    assert.ok(tokens?.access_token);
    const machine = await createMachine(svc, id);
    const iam = await createCaller(svc, id, { instance: ['IAM_OWNER'] });
    const group = await svc.api('POST', `/management/v1/orgs/${id}/groups`, { token: svc.adminToken, body: { displayName: unique('g') } });
    assert.equal(group.status, 201, group.text);
    assert.equal((await svc.api('PUT', `/management/v1/orgs/${id}/groups/${group.body.id}/members/${human.userId}`, { token: svc.adminToken })).status, 200);
    assert.equal(
      (
        await svc.api('PUT', `/management/v1/orgs/${id}/login-policy`, {
          token: svc.adminToken,
          body: { mfa: 'off', passkeys: false, allowRegistration: false },
        })
      ).status,
      200,
    );
    const hook = await svc.api('POST', `/management/v1/orgs/${id}/webhooks`, { token: svc.adminToken, body: { url: 'http://127.0.0.1:9/hook' } });
    assert.equal(hook.status, 201, hook.text);
    const userIds = (await svc.dataSource.query('SELECT id FROM users WHERE org_id = ? ORDER BY id', [id])).map((r: { id: string }) => r.id);
    assert.equal(userIds.length, 6, 'owner, manager, member, human, machine, iam');
    const userinfo = () => fetch(new URL('/oidc/v1/userinfo', svc.config.publicUrl), { headers: { authorization: `Bearer ${tokens!.access_token}` } });
    assert.equal((await userinfo()).status, 200);
    const clientCredentials = () =>
      postForm(svc, '/oauth/v2/token', { grant_type: 'client_credentials' }, { id: machine.clientId, secret: machine.clientSecret });
    assert.equal((await clientCredentials()).status, 200);

    const res = await svc.api('DELETE', orgPath(id), { token: svc.adminToken });
    assert.equal(res.status, 204, res.text);

    for (const [table, column] of [
      ['organizations', 'id'],
      ['users', 'org_id'],
      ['projects', 'org_id'],
      ['applications', 'org_id'],
      ['public_keys', 'org_id'],
      ['personal_access_tokens', 'org_id'],
      ['org_groups', 'org_id'],
      ['login_policies', 'org_id'],
      ['org_user_counts', 'org_id'],
      ['webhook_subscriptions', 'owner'],
    ]) {
      assert.equal(await count(svc, `SELECT COUNT(*) AS n FROM ${table} WHERE ${column} = ?`, [id]), 0, `${table} keeps nothing of it`);
    }
    assert.equal(await count(svc, "SELECT COUNT(*) AS n FROM memberships WHERE scope_type = 'org' AND scope_id = ?", [id]), 0);
    assert.equal(
      await count(svc, `SELECT COUNT(*) AS n FROM memberships WHERE user_id IN (${userIds.map(() => '?').join(',')})`, userIds),
      0,
      'the IAM_OWNER role went with its user',
    );
    assert.equal(
      await count(svc, `SELECT COUNT(*) AS n FROM removed_users WHERE id IN (${userIds.map(() => '?').join(',')})`, userIds),
      6,
      'every user id stays reserved',
    );
    assert.equal(
      await count(svc, `SELECT COUNT(*) AS n FROM oidc_payloads WHERE account_id IN (${userIds.map(() => '?').join(',')})`, userIds),
      0,
      'sessions, grants and tokens revoked',
    );
    assert.equal((await userinfo()).status, 401);
    assert.equal((await clientCredentials()).status, 401);
    const introspect = await postForm(svc, '/oauth/v2/introspect', { token: 'x' }, { id: web.clientId, secret: web.clientSecret! });
    assert.equal(introspect.status, 401, 'the application is gone');

    const removed = await theEvent(svc, 'org.removed', id);
    assert.equal(removed.aggregate.type.type, 'org');
    assert.equal(removed.editor.userId, adminClientId);
    assert.deepEqual(removed.payload, { name: org.org.name, primaryDomain: org.org.primaryDomain });
    for (const userId of userIds) await theEvent(svc, 'user.removed', userId);
    await theEvent(svc, 'project.removed', project.projectId);
    await theEvent(svc, 'project.application.removed', web.appId);
    await theEvent(svc, 'project.application.removed', api.appId);
    await theEvent(svc, 'group.removed', group.body.id);
    await theEvent(svc, 'webhook.removed', hook.body.id);
    const ofOrg = await searchEvents(svc, { resource_owner: id, asc: true, limit: 1000 });
    assert.equal(ofOrg.at(-1)!.type.type, 'org.removed', 'the organization’s removal is its last event');

    await refused(svc, 404, () => svc.api('GET', orgPath(id), { token: svc.adminToken }), 'gone');
    await refused(svc, 404, () => svc.api('DELETE', orgPath(id), { token: svc.adminToken }), 'twice');
    await refused(svc, 404, () => svc.api('GET', `/management/v1/orgs/${id}/projects`, { token: svc.adminToken }), 'its projects');
    const list = await svc.api('GET', '/admin/v1/orgs', { token: svc.adminToken });
    assert.ok(!list.body.orgs.some((o: { id: string }) => o.id === id));
  });
});

describe('admin API: removing an organization never removes the last active IAM_OWNER', () => {
  const svc = useService();

  it('refuses with 409 and leaves everything as it was', async () => {
    const org = await createOrg(svc);
    const project = await createProject(svc, org.id);
    await createOidcApp(svc, project, { authMethod: 'client_secret_basic' }, RP);
    const iam = await createCaller(svc, org.id, { instance: ['IAM_OWNER'] });
    const bootstrap: { id: string }[] = await svc.dataSource.query("SELECT id FROM users WHERE user_name IN ('admin', 'admin-client')");
    for (const { id } of bootstrap) assert.equal((await svc.api('DELETE', `/admin/v1/members/${id}`, { token: iam.token })).status, 204);
    // The organization's own IAM_OWNER is now the only active one.
    const res = await refused(svc, 409, () => svc.api('DELETE', orgPath(org.id), { token: iam.token }));
    assert.match(res.body.message, /last active IAM_OWNER/);
    assert.equal((await svc.api('GET', orgPath(org.id), { token: iam.token })).status, 200);
    assert.equal(await count(svc, 'SELECT COUNT(*) AS n FROM applications WHERE org_id = ?', [org.id]), 1);
  });
});

/**
 * An organization's users go ORG_REMOVAL_BATCH (100) per transaction, so a large
 * organization is never one long transaction; what would refuse one of them refuses the whole removal first.
 */
describe('admin API: removing a large organization, batch by batch', () => {
  const svc = useService();
  const USERS = 450;

  async function importedOrg(prefix: string) {
    const org = await createOrg(svc);
    const users = Array.from({ length: USERS }, (_, i) => humanUser(`${prefix}-${String(i).padStart(4, '0')}`, unique(`bulk${i}`)));
    await postImport(svc, importBody([{ orgId: org.id, humanUsers: users }], '5m'));
    assert.equal(await count(svc, 'SELECT COUNT(*) AS n FROM users WHERE org_id = ?', [org.id]), USERS);
    return { org, userIds: users.map((u) => u.userId) };
  }

  it(`removes every one of ${USERS} users with its event, then the organization`, async () => {
    const { org, userIds } = await importedOrg(`0rm${randomUUID().slice(0, 8)}`);
    const res = await svc.api('DELETE', orgPath(org.id), { token: svc.adminToken });
    assert.equal(res.status, 204, res.text);
    assert.equal(await count(svc, 'SELECT COUNT(*) AS n FROM users WHERE org_id = ?', [org.id]), 0);
    assert.equal(await count(svc, `SELECT COUNT(*) AS n FROM removed_users WHERE id IN (${userIds.map(() => '?').join(',')})`, userIds), USERS);
    const events = await searchEvents(svc, { resource_owner: org.id, event_types: ['user.removed', 'org.removed'], asc: true, limit: 1000 });
    assert.equal(events.filter((e: { type: { type: string } }) => e.type.type === 'user.removed').length, USERS);
    assert.equal(events.at(-1)!.type.type, 'org.removed', 'the organization goes last');
  });

  it('removes more than a batch of applications, projects and groups, each with its event, then the organization', async () => {
    const org = await createOrg(svc);
    const MANY = 201;
    const inTens = async (work: (i: number) => Promise<unknown>) => {
      for (let i = 0; i < MANY; i += 10) await Promise.all(Array.from({ length: Math.min(10, MANY - i) }, (_, j) => work(i + j)));
    };
    const projects: { orgId: string; projectId: string }[] = [];
    await inTens(async () => projects.push(await createProject(svc, org.id)));
    await inTens((i) => createApiApp(svc, projects[i % 2]!));
    await inTens(async () => {
      const res = await svc.api('POST', `/management/v1/orgs/${org.id}/groups`, { token: svc.adminToken, body: { displayName: unique('g') } });
      assert.equal(res.status, 201, res.text);
    });
    const res = await svc.api('DELETE', orgPath(org.id), { token: svc.adminToken });
    assert.equal(res.status, 204, res.text);
    for (const table of ['applications', 'projects', 'org_groups']) {
      assert.equal(await count(svc, `SELECT COUNT(*) AS n FROM ${table} WHERE org_id = ?`, [org.id]), 0, table);
    }
    const events = await searchEvents(svc, {
      resource_owner: org.id,
      event_types: ['project.application.removed', 'project.removed', 'group.removed', 'org.removed'],
      asc: true,
      limit: 1000,
    });
    const counted = (type: string) => events.filter((e: { type: { type: string } }) => e.type.type === type).length;
    assert.deepEqual([counted('project.application.removed'), counted('project.removed'), counted('group.removed')], [MANY, MANY, MANY]);
    assert.equal(events.at(-1)!.type.type, 'org.removed', 'the organization goes last');
  });

  it('refuses with 409 before the first batch when a later batch holds the last active IAM_OWNER; nobody is removed', async () => {
    const { org } = await importedOrg(`0own${randomUUID().slice(0, 8)}`);
    const iam = await createCaller(svc, org.id, { instance: ['IAM_OWNER'] });
    const bootstrap: { id: string }[] = await svc.dataSource.query("SELECT id FROM users WHERE user_name IN ('admin', 'admin-client')");
    for (const { id } of bootstrap) assert.equal((await svc.api('DELETE', `/admin/v1/members/${id}`, { token: iam.token })).status, 204);
    const res = await refused(svc, 409, () => svc.api('DELETE', orgPath(org.id), { token: iam.token }));
    assert.match(res.body.message, /last active IAM_OWNER/);
    assert.equal(await count(svc, 'SELECT COUNT(*) AS n FROM users WHERE org_id = ?', [org.id]), USERS + 1, 'nobody was removed');
  });
});
