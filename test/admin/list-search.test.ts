import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createOrg, unique, useService } from '../support/fixtures.js';

/**
 * `?query=` of the lists people look for by name (docs/product-rules.md, "API"): organizations, projects,
 * applications and groups by a substring of the name, members as the user search matches — each a server-side
 * filter whose `total` counts the matches and which pages like any list. Members carry their names, also an
 * instance member of another organization.
 */
describe('searching the lists by name', () => {
  // Webhooks to a closed local port: their deliveries fail at once, and none leaves the machine.
  const svc = useService({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  const tag = unique('Zq').replace('-', '').toLowerCase();
  let orgId: string;
  let otherOrgId: string;
  let projectId: string;
  let memberId: string;

  const created = async (path: string, body: unknown): Promise<Record<string, string>> => {
    const res = await svc.api('POST', path, { token: svc.adminToken, body });
    assert.equal(res.status, 201, res.text);
    return res.body;
  };
  const list = async (path: string) => {
    const res = await svc.api('GET', path, { token: svc.adminToken });
    assert.equal(res.status, 200, res.text);
    return res.body;
  };

  before(async () => {
    orgId = (await createOrg(svc, `Acme ${tag.toUpperCase()} Payroll`)).id;
    await createOrg(svc, `Acme ${tag} Legal`);
    otherOrgId = (await createOrg(svc, unique('Elsewhere'))).id;
    projectId = (await created(`/management/v1/orgs/${orgId}/projects`, { name: `Payroll ${tag}` })).id;
    await created(`/management/v1/orgs/${orgId}/projects`, { name: 'Travel' });
    for (const name of ['Payroll web', 'Payroll batch', 'Wiki'])
      await created(`/management/v1/orgs/${orgId}/projects/${projectId}/apps/oidc`, {
        name,
        redirectUris: ['https://app.example.com/cb'],
        authMethod: 'private_key_jwt',
        responseTypes: ['code'],
        grantTypes: ['authorization_code'],
      });
    for (const displayName of ['Payroll admins', 'Payroll_readers', 'Everyone']) await created(`/management/v1/orgs/${orgId}/groups`, { displayName });
    const person = await created(`/management/v1/orgs/${otherOrgId}/users/human`, {
      userName: unique('katherine'),
      profile: { firstName: 'Katherine', lastName: `Johnson${tag}`, displayName: 'Katherine Johnson' },
      email: { email: 'kj@example.com' },
    });
    memberId = person.userId;
    const put = await svc.api('PUT', `/admin/v1/members/${memberId}`, { token: svc.adminToken, body: { roles: ['IAM_OWNER'] } });
    assert.equal(put.status, 200, put.text);
  });

  it('finds organizations by a substring of the name, any case, with the total of the matches, paged', async () => {
    const found = await list(`/admin/v1/orgs?query=${tag.toUpperCase()}`);
    assert.deepEqual(found.orgs.map((o: { name: string }) => o.name).sort(), [`Acme ${tag.toUpperCase()} Payroll`, `Acme ${tag} Legal`]);
    assert.equal(found.total, 2);
    const page = await list(`/admin/v1/orgs?query=${tag}&limit=1&offset=1`);
    assert.equal(page.orgs.length, 1);
    assert.equal(page.total, 2);
    assert.equal(page.orgs[0].id, found.orgs[1].id, 'the second page holds the second match');
  });

  it('finds projects, applications and groups by name; % and _ match only themselves', async () => {
    const projects = await list(`/management/v1/orgs/${orgId}/projects?query=payroll`);
    assert.deepEqual(
      projects.projects.map((p: { id: string }) => p.id),
      [projectId],
    );
    assert.equal(projects.total, 1);
    const apps = await list(`/management/v1/orgs/${orgId}/projects/${projectId}/apps?query=PAYROLL`);
    assert.deepEqual(apps.apps.map((a: { name: string }) => a.name).sort(), ['Payroll batch', 'Payroll web']);
    assert.equal(apps.total, 2);
    const page = await list(`/management/v1/orgs/${orgId}/projects/${projectId}/apps?query=payroll&limit=1`);
    assert.equal(page.apps.length, 1);
    assert.equal(page.total, 2);
    const groups = await list(`/management/v1/orgs/${orgId}/groups?query=payroll`);
    assert.deepEqual(groups.groups.map((g: { displayName: string }) => g.displayName).sort(), ['Payroll admins', 'Payroll_readers']);
    const underscore = await list(`/management/v1/orgs/${orgId}/groups?query=${encodeURIComponent('l_r')}`);
    assert.deepEqual(
      underscore.groups.map((g: { displayName: string }) => g.displayName),
      ['Payroll_readers'],
    );
    const percent = await list(`/management/v1/orgs/${orgId}/projects/${projectId}/apps?query=${encodeURIComponent('%')}`);
    assert.equal(percent.total, 0);
  });

  it('names every member, also an instance member of another organization, and finds members as the user search does', async () => {
    const all = await list('/admin/v1/members');
    const member = all.members.find((m: { userId: string }) => m.userId === memberId);
    assert.equal(member.displayName, 'Katherine Johnson');
    assert.match(member.loginName, /^katherine-[0-9a-f]+@/);
    const found = await list(`/admin/v1/members?query=johnson${tag}`);
    assert.deepEqual(
      found.members.map((m: { userId: string }) => m.userId),
      [memberId],
    );
    assert.equal(found.total, 1);
    const byMail = await list(`/admin/v1/members?query=${encodeURIComponent('KJ@EXAMPLE')}`);
    assert.ok(byMail.members.some((m: { userId: string }) => m.userId === memberId));
    const none = await list(`/management/v1/orgs/${otherOrgId}/members?query=johnson${tag}`);
    assert.deepEqual(none, { members: [], total: 0 }, 'an instance role is no membership of the organization');
  });

  it("finds a project's grants by the person's or the group's name, and webhooks, identity providers and domains by their text", async () => {
    const people = [];
    for (const [first, last] of [
      ['Dorothy', `Vaughan${tag}`],
      ['Mary', 'Jackson'],
    ])
      people.push(
        await created(`/management/v1/orgs/${orgId}/users/human`, {
          userName: unique(first.toLowerCase()),
          profile: { firstName: first, lastName: last },
          email: { email: `${first.toLowerCase()}@example.com` },
        }),
      );
    await created(`/management/v1/orgs/${orgId}/projects/${projectId}/roles`, { key: 'clerk' });
    const groups = await list(`/management/v1/orgs/${orgId}/groups?query=payroll`);
    const admins = groups.groups.find((g: { displayName: string }) => g.displayName === 'Payroll admins').id;
    const grants = `/management/v1/orgs/${orgId}/projects/${projectId}/grants`;
    for (const party of [{ userId: people[0]!.userId }, { userId: people[1]!.userId }, { groupId: admins }])
      await created(grants, { ...party, roles: ['clerk'] });
    const byPerson = await list(`${grants}?query=${encodeURIComponent(`VAUGHAN${tag}`)}`);
    assert.deepEqual(
      byPerson.grants.map((g: { userId?: string }) => g.userId),
      [people[0]!.userId],
    );
    assert.equal(byPerson.total, 1);
    const byGroup = await list(`${grants}?query=admins`);
    assert.deepEqual(
      byGroup.grants.map((g: { groupId?: string }) => g.groupId),
      [admins],
    );
    const paged = await list(`${grants}?query=${encodeURIComponent('@example.com')}&limit=1&offset=1`);
    assert.deepEqual([paged.grants.length, paged.total], [1, 2], 'by e-mail too, paged with the total of the matches');
    assert.equal((await list(`${grants}?query=nobody`)).total, 0);

    for (const url of ['http://127.0.0.1:9/payroll', 'http://127.0.0.1:9/legal']) await created(`/management/v1/orgs/${orgId}/webhooks`, { url });
    const hooks = await list(`/management/v1/orgs/${orgId}/webhooks?query=PAYROLL`);
    assert.deepEqual(
      hooks.webhooks.map((w: { url: string }) => w.url),
      ['http://127.0.0.1:9/payroll'],
    );
    assert.equal(hooks.total, 1);
    await created('/admin/v1/webhooks', { url: `http://127.0.0.1:9/${tag}` });
    const instanceHooks = await list(`/admin/v1/webhooks?query=${tag}`);
    assert.deepEqual([instanceHooks.webhooks.length, instanceHooks.total], [1, 1]);
    const domains = await list(`/management/v1/orgs/${orgId}/domains?query=${encodeURIComponent('nothing-like-it')}`);
    assert.deepEqual(domains, { domains: [], total: 0 });
    const primary = await list(`/management/v1/orgs/${orgId}/domains`);
    const [first] = primary.domains[0].domain.split('.');
    assert.equal((await list(`/management/v1/orgs/${orgId}/domains?query=${first.toUpperCase()}`)).total, 1);
    assert.deepEqual(await list(`/management/v1/orgs/${orgId}/idps?query=anything`), { idps: [], total: 0 });
  });

  it('finds directories, audit streams, provisioning targets and external resources by name or address', async () => {
    assert.equal((await svc.api('PUT', '/admin/v1/directory-hosts', { token: svc.adminToken, body: { allow: ['127.0.0.1'] } })).status, 200);
    const base = `/management/v1/orgs/${orgId}`;
    for (const name of [`Payroll LDAP ${tag}`, 'Corporate LDAP'])
      await created(`${base}/directories`, {
        type: 'ldap',
        name,
        url: 'ldap://127.0.0.1:9',
        bindDn: 'cn=portcullis,dc=example,dc=org',
        bindPassword: 'not-used',
        usersDn: 'ou=people,dc=example,dc=org',
        sync: { intervalMinutes: 0 },
      });
    for (const name of [`siem-${tag}`, 'archive']) await created(`${base}/audit-streams`, { name, type: 'https', url: `https://127.0.0.1:9/${name}` });
    for (const name of [`hr-${tag}`, 'wiki'])
      await created(`${base}/provisioning/targets`, { name, baseUrl: `https://127.0.0.1:9/${name}/scim/v2`, auth: { type: 'bearer', token: 'not-used' } });
    for (const name of [`Files ${tag}`, 'Calendar'])
      await created(`${base}/external-resources`, {
        name,
        issuer: 'https://rs.example',
        resource: `https://${name.split(' ')[0].toLowerCase()}.example/mcp`,
        scopes: ['read'],
        clientIdAtIssuer: 'agent',
        projectId,
      });
    for (const [path, key, field] of [
      [`${base}/directories`, 'directories', 'name'],
      [`${base}/audit-streams`, 'streams', 'name'],
      [`${base}/provisioning/targets`, 'targets', 'name'],
      [`${base}/external-resources`, 'externalResources', 'name'],
    ]) {
      const found = await list(`${path}?query=${tag.toUpperCase()}`);
      assert.equal(found.total, 1, `${path}: ${JSON.stringify(found)}`);
      assert.ok(String(found[key][0][field]).toLowerCase().includes(tag), path);
      assert.equal((await list(`${path}?query=nothing-like-it`)).total, 0, path);
      assert.equal((await list(path)).total, 2, `${path}: without a query, every one`);
    }
    // By address too: a target's base URL, a stream's URL.
    assert.equal((await list(`${base}/provisioning/targets?query=${encodeURIComponent('/wiki/scim')}`)).total, 1);
    assert.equal((await list(`${base}/audit-streams?query=${encodeURIComponent(':9/archive')}`)).total, 1);
  });

  it("finds a project's roles by a substring of the key or of the display name, any case", async () => {
    const roles = `/management/v1/orgs/${orgId}/projects/${projectId}/roles`;
    await created(roles, { key: `payroll.${tag}.read`, displayName: 'Read payslips' });
    await created(roles, { key: 'payroll.approve', displayName: `Approver ${tag.toUpperCase()}` });
    await created(roles, { key: 'wiki.edit', displayName: 'Wiki editor' });
    const found = await list(`${roles}?query=${tag.toUpperCase()}`);
    assert.deepEqual(
      found.roles.map((r: { key: string }) => r.key),
      ['payroll.approve', `payroll.${tag}.read`],
    );
    assert.equal(found.total, 2);
    assert.equal((await list(`${roles}?query=PAYSLIP`)).total, 1);
    assert.equal((await list(`${roles}?query=nothing-like-it`)).total, 0);
    assert.equal((await list(roles)).total, 4, 'without a query, every one (the grants above added "clerk")');
  });

  it('refuses a query with a control character or past 200 characters with 400 naming it, on every searched list', async () => {
    for (const path of [
      '/admin/v1/orgs',
      `/management/v1/orgs/${orgId}/projects`,
      `/management/v1/orgs/${orgId}/groups`,
      '/admin/v1/members',
      `/management/v1/orgs/${orgId}/projects/${projectId}/grants`,
      `/management/v1/orgs/${orgId}/projects/${projectId}/roles`,
      `/management/v1/orgs/${orgId}/webhooks`,
      '/admin/v1/webhooks',
      `/management/v1/orgs/${orgId}/idps`,
      `/management/v1/orgs/${orgId}/domains`,
      `/management/v1/orgs/${orgId}/directories`,
      `/management/v1/orgs/${orgId}/audit-streams`,
      '/admin/v1/audit-streams',
      `/management/v1/orgs/${orgId}/provisioning/targets`,
      `/management/v1/orgs/${orgId}/external-resources`,
      `/management/v1/orgs/${otherOrgId}/users/${memberId}/agents`,
      `/management/v1/orgs/${orgId}/registered-clients`,
      `/management/v1/orgs/${orgId}/agents`,
      '/admin/v1/registered-clients/unbound',
    ]) {
      for (const query of ['a%0Ab', 'x'.repeat(201)]) {
        const res = await svc.api('GET', `${path}?query=${query}`, { token: svc.adminToken });
        assert.equal(res.status, 400, `${path}: ${res.text}`);
        assert.ok(
          res.body.details.some((d: { field?: string }) => d.field === 'query'),
          res.text,
        );
      }
    }
  });
});
