import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { ApplicationAccess } from '../../src/users/project-access/application-access.service.js';
import { createCaller, unique, useService } from '../support/fixtures.js';
import { badRequest, row, setUpOrg, theEvent } from './helpers.js';
import type { OrgSetup } from './helpers.js';

const oidcApp = (overrides: Record<string, unknown> = {}) => ({
  name: unique('web'),
  redirectUris: ['https://app.example.com/cb'],
  responseTypes: ['code'],
  grantTypes: ['authorization_code'],
  authMethod: 'client_secret_basic',
  ...overrides,
});
const samlApp = (overrides: Record<string, unknown> = {}) => ({
  name: unique('saml'),
  entityId: `https://${unique('sp')}.example.com/saml`,
  acsUrls: ['https://sp.example.com/acs'],
  ...overrides,
});

describe('applications: access and homeUrl, and the ApplicationAccess service', () => {
  const svc = useService();
  let a: OrgSetup;
  let b: OrgSetup;
  let access: ApplicationAccess;
  const projectUrl = (org: OrgSetup, p: string) => `/management/v1/orgs/${org.org.id}/projects/${p}`;

  async function project(org: OrgSetup): Promise<string> {
    const res = await svc.api('POST', `/management/v1/orgs/${org.org.id}/projects`, { token: org.owner.token, body: { name: unique('p') } });
    assert.equal(res.status, 201, res.text);
    return res.body.id;
  }

  async function app(org: OrgSetup, p: string, kind: 'oidc' | 'saml', body: Record<string, unknown>): Promise<string> {
    const res = await svc.api('POST', `${projectUrl(org, p)}/apps/${kind}`, { token: org.owner.token, body });
    assert.equal(res.status, 201, res.text);
    return res.body.appId;
  }

  async function post(org: OrgSetup, url: string, body: Record<string, unknown>): Promise<string> {
    const res = await svc.api('POST', url, { token: org.owner.token, body });
    assert.equal(res.status, 201, res.text);
    return res.body.grantId ?? res.body.id;
  }

  before(async () => {
    a = await setUpOrg(svc);
    b = await setUpOrg(svc);
    access = svc.app.get(ApplicationAccess);
  });

  it('OIDC and SAML applications default to access everyone without homeUrl; create, read and PATCH both', async () => {
    const p = await project(a);
    for (const [kind, body] of [
      ['oidc', oidcApp()],
      ['saml', samlApp()],
    ] as const) {
      const plain = await app(a, p, kind, body);
      const read = await svc.api('GET', `${projectUrl(a, p)}/apps/${plain}`, { token: a.owner.token });
      assert.equal(read.body.access, 'everyone', read.text);
      assert.equal(read.body.homeUrl, null);
      const made = await app(a, p, kind, { ...(kind === 'oidc' ? oidcApp() : samlApp()), access: 'granted', homeUrl: 'https://app.example.com/home' });
      const stored = await row(svc, 'SELECT access, home_url FROM applications WHERE id = ?', [made]);
      assert.deepEqual({ ...stored }, { access: 'granted', home_url: 'https://app.example.com/home' });
      const patched = await svc.api('PATCH', `${projectUrl(a, p)}/apps/${made}`, { token: a.owner.token, body: { access: 'everyone', homeUrl: null } });
      assert.equal(patched.status, 200, patched.text);
      assert.equal(patched.body.access, 'everyone');
      assert.equal(patched.body.homeUrl, null);
      const event = await theEvent(svc, 'project.application.changed', made);
      assert.deepEqual(event.payload, { projectId: p, clientId: patched.body.clientId, access: 'everyone', homeUrl: null });
    }
  });

  it('refuses a bad access or homeUrl with 400 naming the field, on create and PATCH, storing nothing', async () => {
    const p = await project(a);
    const existing = await app(a, p, 'oidc', oidcApp());
    const saml = await app(a, p, 'saml', samlApp());
    for (const [field, value] of [
      ['access', 'nobody'],
      ['access', 7],
      ['homeUrl', 'ftp://app.example.com/'],
      ['homeUrl', '/relative'],
      ['homeUrl', 'https://user:pw@app.example.com/'],
      ['homeUrl', 'javascript:alert(1)'],
      ['homeUrl', `https://app.example.com/${'x'.repeat(2000)}`],
    ] as const) {
      await badRequest(
        svc,
        [field],
        () => svc.api('POST', `${projectUrl(a, p)}/apps/oidc`, { token: a.owner.token, body: oidcApp({ [field]: value }) }),
        `oidc ${value}`,
      );
      await badRequest(
        svc,
        [field],
        () => svc.api('POST', `${projectUrl(a, p)}/apps/saml`, { token: a.owner.token, body: samlApp({ [field]: value }) }),
        `saml ${value}`,
      );
      for (const id of [existing, saml])
        await badRequest(
          svc,
          [field],
          () => svc.api('PATCH', `${projectUrl(a, p)}/apps/${id}`, { token: a.owner.token, body: { [field]: value } }),
          `PATCH ${value}`,
        );
    }
  });

  it('API applications take access (default everyone) on create, read and PATCH; a homeUrl or a bad access is a 400', async () => {
    const p = await project(a);
    const apiApp = (overrides: Record<string, unknown> = {}) => ({ name: unique('api'), authMethod: 'client_secret_basic', ...overrides });
    const created = async (body: Record<string, unknown>): Promise<string> => {
      const res = await svc.api('POST', `${projectUrl(a, p)}/apps/api`, { token: a.owner.token, body });
      assert.equal(res.status, 201, res.text);
      return res.body.appId;
    };
    const plain = await created(apiApp());
    const read = await svc.api('GET', `${projectUrl(a, p)}/apps/${plain}`, { token: a.owner.token });
    assert.equal(read.body.access, 'everyone', read.text);
    assert.equal('homeUrl' in read.body, false, 'no link on an API application');

    const guarded = await created(apiApp({ access: 'granted' }));
    assert.deepEqual({ ...(await row(svc, 'SELECT access, home_url FROM applications WHERE id = ?', [guarded])) }, { access: 'granted', home_url: null });
    const added = await theEvent(svc, 'project.application.added', p, (event) => event.payload.appId === guarded);
    assert.equal(added.payload.access, 'granted');
    assert.equal('homeUrl' in added.payload, false);
    assert.equal((await svc.api('GET', `${projectUrl(a, p)}/apps/${guarded}`, { token: a.owner.token })).body.access, 'granted');
    const patched = await svc.api('PATCH', `${projectUrl(a, p)}/apps/${guarded}`, { token: a.owner.token, body: { access: 'everyone' } });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.access, 'everyone');
    const event = await theEvent(svc, 'project.application.changed', guarded);
    assert.deepEqual(event.payload, { projectId: p, clientId: patched.body.clientId, access: 'everyone' });

    for (const [field, value] of [
      ['access', 'nobody'],
      ['homeUrl', 'https://app.example.com/home'],
      ['homeUrl', null],
    ] as const) {
      await badRequest(
        svc,
        [field],
        () => svc.api('POST', `${projectUrl(a, p)}/apps/api`, { token: a.owner.token, body: apiApp({ [field]: value }) }),
        `api ${value}`,
      );
      await badRequest(
        svc,
        [field],
        () => svc.api('PATCH', `${projectUrl(a, p)}/apps/${plain}`, { token: a.owner.token, body: { [field]: value } }),
        `PATCH api ${value}`,
      );
    }
    assert.equal((await row(svc, 'SELECT access FROM applications WHERE id = ?', [plain])).access, 'everyone');
  });

  it('mayEnter, rolesIn and appsFor read grants of the user and of its groups', async () => {
    const p = await project(a);
    const other = await project(a);
    for (const key of ['zeta', 'Alpha', 'beta']) await post(a, `${projectUrl(a, p)}/roles`, { key });
    const user = await createCaller(svc, a.org.id);
    const stranger = await createCaller(svc, a.org.id);
    const everyone = await app(a, other, 'oidc', oidcApp({ homeUrl: 'https://everyone.example.com/' }));
    const granted = await app(a, p, 'oidc', oidcApp({ access: 'granted', homeUrl: 'https://granted.example.com/' }));
    const grantedSaml = await app(a, p, 'saml', samlApp({ access: 'granted', homeUrl: 'https://saml.example.com/' }));
    await app(a, p, 'oidc', oidcApp({ access: 'granted' }));
    await app(b, await project(b), 'oidc', oidcApp({ homeUrl: 'https://elsewhere.example.com/' }));
    const gated = { projectId: p, access: 'granted' as const };

    assert.equal(await access.mayEnter({ projectId: p, access: 'everyone' }, stranger.userId), true);
    assert.equal(await access.mayEnter(gated, user.userId), false);
    assert.deepEqual(await access.rolesIn(p, user.userId), []);
    assert.deepEqual(
      (await access.appsFor(user.userId, a.org.id)).map((x) => x.appId),
      [everyone],
    );

    const groupRes = await svc.api('POST', `/management/v1/orgs/${a.org.id}/groups`, { token: a.manager.token, body: { displayName: unique('g') } });
    const g = groupRes.body.id as string;
    await svc.api('PUT', `/management/v1/orgs/${a.org.id}/groups/${g}/members/${user.userId}`, { token: a.manager.token });
    const groupGrant = await post(a, `${projectUrl(a, p)}/grants`, { groupId: g, roles: [] });
    assert.equal(await access.mayEnter(gated, user.userId), true, 'a grant without roles admits');
    assert.equal(await access.mayEnter(gated, stranger.userId), false);
    await post(a, `${projectUrl(a, p)}/grants`, { userId: user.userId, roles: ['zeta', 'beta'] });
    await svc.api('PATCH', `${projectUrl(a, p)}/grants/${groupGrant}`, { token: a.owner.token, body: { roles: ['Alpha', 'beta'] } });
    assert.deepEqual(await access.rolesIn(p, user.userId), ['Alpha', 'beta', 'zeta'], 'union, sorted by code point');
    assert.deepEqual(await access.rolesIn(other, user.userId), []);
    const apps = await access.appsFor(user.userId, a.org.id);
    assert.deepEqual(new Set(apps.map((x) => x.appId)), new Set([everyone, granted, grantedSaml]));
    assert.equal(apps.find((x) => x.appId === grantedSaml)?.homeUrl, 'https://saml.example.com/');

    await svc.api('DELETE', `/management/v1/orgs/${a.org.id}/groups/${g}/members/${user.userId}`, { token: a.manager.token });
    assert.deepEqual(await access.rolesIn(p, user.userId), ['beta', 'zeta'], 'read on use: leaving the group drops its roles');
  });

  it("finds the one grant that reaches a user in 200 groups among a project's 1,000 grants", async () => {
    const p = await project(a);
    const user = await createCaller(svc, a.org.id);
    const now = Date.now();
    const groupIds = Array.from({ length: 200 }, () => unique('grp'));
    const others = Array.from({ length: 1000 }, (_, i) => i);
    const m = svc.dataSource.manager;
    // Rows written directly (the API would take minutes for this many; the reads are what is measured). The 1,000
    // other grants name neither a user nor a group: they fill the project's index like other people's grants.
    const insert = async (table: string, columns: string[], rows: unknown[][]) => {
      const marks = `(${columns.map(() => '?').join(', ')})`;
      await m.query(`INSERT INTO ${table} (${columns.join(', ')}) VALUES ${rows.map(() => marks).join(', ')}`, rows.flat());
    };
    await insert(
      'org_groups',
      ['id', 'org_id', 'display_name', 'display_name_key', 'created_at', 'changed_at'],
      groupIds.map((id) => [id, a.org.id, id, id, now, now]),
    );
    await insert(
      'group_members',
      ['group_id', 'user_id', 'added_at'],
      groupIds.map((id) => [id, user.userId, now]),
    );
    for (let chunk = 0; chunk < others.length; chunk += 250)
      await insert(
        'project_grants',
        ['id', 'org_id', 'project_id', 'roles', 'created_at', 'changed_at'],
        others.slice(chunk, chunk + 250).map((i) => [unique('gr'), a.org.id, p, '["r"]', now, now + i]),
      );
    await m.query('INSERT INTO project_grants (id, org_id, project_id, user_id, group_id, roles, created_at, changed_at) VALUES (?, ?, ?, NULL, ?, ?, ?, ?)', [
      unique('gr'),
      a.org.id,
      p,
      groupIds[199],
      '["last"]',
      now,
      now,
    ]);
    // What this costs is measured by the benchmark ("token with access check and roles"), not here.
    assert.equal(await access.mayEnter({ projectId: p, access: 'granted' }, user.userId), true);
    assert.deepEqual(await access.rolesIn(p, user.userId), ['last']);
    const outsider = await createCaller(svc, a.org.id);
    assert.equal(await access.mayEnter({ projectId: p, access: 'granted' }, outsider.userId), false);
    assert.deepEqual(await access.rolesIn(p, outsider.userId), []);
  });
});
