import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as oidc from 'openid-client';
import { Secret, TOTP } from 'otpauth';
import { LoginClient, csrfOf } from '../attack/support/login-client.js';
import { createCaller, createOrg, unique, useService } from '../support/fixtures.js';
import type { TestService } from '../support/service.js';
import { createOidcApp, createProject, discover } from '../oidc/support/oidc-fixtures.js';
import { SignInFlow } from '../oidc/support/second-factor.js';
import { keycloakClientSecret, keycloakOtpSecret, keycloakRealm } from './support/keycloak-realm.js';
import type { SeedUser } from './support/keycloak-realm.js';

interface Report {
  migrationId: string;
  dryRun: boolean;
  organization: { id: string; name: string; created: boolean };
  counts: Record<string, { created: number; updated: number; unchanged: number; failed: number }>;
  failures: { kind: string; sourceId: string; message: string }[];
  unmapped: { path: string; reason: string }[];
}

/** The code an authenticator app shows for a Keycloak OTP secret: its QR code carries the text's UTF-8 bytes. */
function authenticatorCode(keycloakSecret: string, steps = 0): string {
  return new TOTP({ secret: Secret.fromUTF8(keycloakSecret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({ timestamp: Date.now() + steps * 30_000 });
}

async function migrate(svc: TestService, body: Record<string, unknown>, token = svc.adminToken): Promise<Report> {
  const res = await svc.api<Report>('POST', '/admin/v1/migrations', { token, body });
  assert.equal(res.status, 200, res.text);
  return res.body;
}

/** What a migration may change: every domain table and the events other than its own. */
async function domainState(svc: TestService): Promise<string> {
  const counts = [];
  for (const table of [
    'organizations',
    'users',
    'user_factors',
    'org_groups',
    'group_members',
    'projects',
    'applications',
    'project_roles',
    'project_grants',
    'migrated_objects',
  ]) {
    const [row] = await svc.dataSource.query(`SELECT COUNT(*) AS n FROM ${table}`);
    counts.push(`${table}=${row.n}`);
  }
  const [events] = await svc.dataSource.query(`SELECT COUNT(*) AS n FROM events WHERE type NOT LIKE 'migration.%'`);
  return `${counts.join(' ')} events=${events.n}`;
}

describe('moving in from Keycloak: a realm export, one request, the same sub and passwords', () => {
  const svc = useService({ IMPORT_BODY_LIMIT_BYTES: '1000000' });
  const totpSecret = keycloakOtpSecret();
  const seeds: SeedUser[] = [
    { username: 'alice', password: 'alice-Old-Passw0rd', hashing: 'pbkdf2-sha256-512bit', groups: ['/Engineering/Backend'], shopRoles: ['viewer'] },
    { username: 'bob', password: 'bob-Old-Passw0rd', hashing: 'pbkdf2-sha256', realmRoles: ['admin'], groups: ['/Sales'], shopRoles: ['manager'] },
    {
      username: 'carol',
      password: 'carol-Old-Passw0rd',
      hashing: 'pbkdf2-sha512',
      groups: ['/Engineering'],
      attributes: { locale: ['de'], department: ['R&D'] },
    },
    { username: 'dave', password: 'dave-Old-Passw0rd ünïcode', hashing: 'argon2id', webauthn: true },
    { username: 'erin', password: 'erin-Old-Passw0rd', hashing: 'pbkdf2-sha256', totpSecret, groups: ['/Engineering/Backend'] },
    { username: 'frank', password: 'frank-Old-Passw0rd', hashing: 'pbkdf2-sha256', enabled: false, requiredActions: ['UPDATE_PASSWORD', 'CONFIGURE_TOTP'] },
    { username: 'zed', password: 'zed-Old-Passw0rd', hashing: 'pbkdf2-sha256' },
  ];
  const shopSecret = keycloakClientSecret();
  let realm: Record<string, unknown>;
  let orgId: string;
  let primaryDomain: string;
  let first: Report;
  const idOf = (username: string) => (realm.users as { id: string; username: string }[]).find((u) => u.username === username)!.id;

  it('migrates the realm into an organization: users with their ids, groups by path, realm roles as role: groups; a taken userName is one failure', async () => {
    realm = await keycloakRealm(unique('acme').toLowerCase(), seeds, shopSecret);
    const org = await createOrg(svc);
    orgId = org.id;
    primaryDomain = org.primaryDomain;
    // The organization already has a zed: the realm's zed is the one listed failure, the rest goes in.
    const taken = await svc.api('POST', `/management/v1/orgs/${orgId}/users/human`, {
      token: svc.adminToken,
      body: {
        userName: 'ZED',
        profile: { firstName: 'Z', lastName: 'Z' },
        email: { email: 'other-zed@example.com', isEmailVerified: false },
        password: 'Other-Passw0rd-1',
      },
    });
    assert.equal(taken.status, 201, taken.text);

    first = await migrate(svc, { source: 'keycloak', document: realm, orgId });
    assert.equal(first.dryRun, false);
    assert.deepEqual(first.organization, { id: orgId, name: org.name, created: false });
    assert.deepEqual(first.counts.user, { created: 6, updated: 0, unchanged: 0, failed: 1 });
    assert.deepEqual(first.counts.group, { created: 5, updated: 0, unchanged: 0, failed: 0 });
    // shop and spa; Keycloak's own clients are skipped, the SAML client is listed as unmapped.
    assert.deepEqual(first.counts.client, { created: 2, updated: 0, unchanged: 0, failed: 0 });
    assert.deepEqual(first.counts.role, { created: 3, updated: 0, unchanged: 0, failed: 0 });
    assert.deepEqual(first.counts.grant, { created: 4, updated: 0, unchanged: 0, failed: 0 });
    assert.deepEqual(
      first.failures.map((f) => [f.kind, f.sourceId]),
      [['user', idOf('zed')]],
    );
    assert.match(first.failures[0].message, /userName "zed" is taken/);

    const users = await svc.api('GET', `/management/v1/orgs/${orgId}/users?limit=100`, { token: svc.adminToken });
    assert.equal(users.status, 200, users.text);
    const groups = await svc.api('GET', `/management/v1/orgs/${orgId}/groups`, { token: svc.adminToken });
    const byName = new Map<string, { id: string; memberCount: number }>(groups.body.groups.map((g: { displayName: string }) => [g.displayName, g]));
    assert.deepEqual([...byName.keys()].sort(), ['/Engineering', '/Engineering/Backend', '/Sales', 'role:admin', 'role:developer']);
    const members = async (name: string) => {
      const rows: { user_id: string }[] = await svc.dataSource.query('SELECT user_id FROM group_members WHERE group_id = ?', [byName.get(name)!.id]);
      return rows.map((r) => r.user_id).sort();
    };
    // A member of /Engineering/Backend is not made a member of /Engineering, but holds its role.
    assert.deepEqual(await members('/Engineering'), [idOf('carol')]);
    assert.deepEqual(await members('/Engineering/Backend'), [idOf('alice'), idOf('erin')].sort());
    assert.deepEqual(await members('role:admin'), [idOf('bob')]);
    // developer: bob through the admin composite, carol through /Engineering, alice and erin through its subgroup.
    assert.deepEqual(await members('role:developer'), ['alice', 'bob', 'carol', 'erin'].map(idOf).sort());

    const [frank] = await svc.dataSource.query('SELECT state, password_change_required AS pcr FROM users WHERE id = ?', [idOf('frank')]);
    assert.equal(frank.state, 'inactive');
    assert.equal(Number(frank.pcr), 1);
    const [carol] = await svc.dataSource.query('SELECT preferred_language AS lang, created_at AS created FROM users WHERE id = ?', [idOf('carol')]);
    assert.equal(carol.lang, 'de');
    assert.equal(Number(carol.created), 1_690_000_000_000, 'createdTimestamp kept');
  });

  it('lists what did not carry over by its path, and no report holds a secret, hash or seed', async () => {
    const paths = first.unmapped.map((u) => u.path);
    const carol = (realm.users as { username: string }[]).findIndex((u) => u.username === 'carol');
    const dave = (realm.users as { username: string }[]).findIndex((u) => u.username === 'dave');
    const frank = (realm.users as { username: string }[]).findIndex((u) => u.username === 'frank');
    for (const path of [
      `users[${carol}].attributes.department`,
      `users[${dave}].credentials[1]`,
      `users[${frank}].requiredActions[1]`,
      'authenticationFlows',
      'clients[6].redirectUris[1]',
      'clients[6].directAccessGrantsEnabled',
      'clients[8]',
      'requiredActions',
      'accessTokenLifespan',
    ]) {
      assert.ok(paths.includes(path), `${path} is listed: ${JSON.stringify(paths)}`);
    }
    for (const u of first.unmapped) assert.ok(u.reason.length > 0);
    assert.ok(!paths.includes(`users[${carol}].attributes.locale`), 'locale is mapped');

    const stored = await svc.api('GET', `/admin/v1/migrations/${first.migrationId}`, { token: svc.adminToken });
    assert.equal(stored.status, 200, stored.text);
    assert.deepEqual(stored.body, first);
    const events = await svc.dataSource.query(`SELECT payload FROM events WHERE payload LIKE ?`, [`%${first.migrationId}%`]);
    assert.ok(events.length >= 6, 'the created objects and the run carry the migration id');
    const everything = JSON.stringify([first, stored.body, events]);
    assert.ok(!everything.includes(totpSecret), 'no TOTP seed');
    assert.ok(!everything.includes(Secret.fromUTF8(totpSecret).base32), 'no TOTP seed, base32');
    for (const user of realm.users as { credentials: { secretData: string }[] }[]) {
      for (const credential of user.credentials) {
        const secret = JSON.parse(credential.secretData) as { value?: string; salt?: string };
        for (const value of [secret.value, secret.salt]) if (value) assert.ok(!everything.includes(value.replace(/=+$/, '').slice(0, 16)), 'no hash or salt');
      }
    }
    for (const seed of seeds) assert.ok(!everything.includes(seed.password), 'no password');
    assert.ok(!everything.includes(shopSecret), 'no client secret');
    const [app] = await svc.dataSource.query(`SELECT client_secret_hash AS h FROM applications WHERE client_id = 'shop'`);
    assert.ok(app.h && app.h !== shopSecret, 'the client secret is stored as a hash');
  });

  it('every user signs in at an OIDC app with the old password and keeps the sub; the TOTP user with the authenticator’s code', async () => {
    const project = await createProject(svc, orgId);
    const app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic', idTokenUserinfoAssertion: true });
    const redirectUri = 'http://127.0.0.1:65530/cb';
    for (const seed of seeds.filter((s) => s.username !== 'zed' && s.username !== 'frank')) {
      const flow = new SignInFlow(svc, app, redirectUri);
      flow.client.declinesMfaOffer = true;
      await flow.authorize({ scope: 'openid groups' });
      const wrong = await flow.password(`${seed.username}@${primaryDomain}`, `${seed.password}x`);
      assert.notEqual(wrong.status, 303, `${seed.username}: a wrong password is refused`);
      let done = await flow.password(`${seed.username}@${primaryDomain}`, seed.password);
      if (seed.totpSecret) {
        const ask = await flow.next(done);
        assert.match(ask.text, /name="code"/, 'the TOTP user is asked for a code');
        done = await flow.post('code', ask, { code: authenticatorCode(seed.totpSecret) });
      }
      const { claims } = await flow.tokens(done);
      assert.equal(claims.sub, idOf(seed.username), `${seed.username}: the same sub as at Keycloak`);
      if (seed.totpSecret) assert.deepEqual(claims.amr, ['pwd', 'otp', 'mfa']);
      if (seed.username === 'bob') assert.deepEqual((claims.groups as string[]).sort(), ['/Sales', 'role:admin', 'role:developer']);
      if (seed.username === 'alice') assert.deepEqual((claims.groups as string[]).sort(), ['/Engineering/Backend', 'role:developer']);
    }
  });

  it('an unmodified openid-client app signs in with its old client id and secret and sees the same sub, groups and roles', async () => {
    const config = await discover(svc, 'shop', oidc.ClientSecretBasic(shopSecret));
    const expected: Record<string, { groups: string[]; roles: string[] }> = {
      alice: { groups: ['/Engineering/Backend', 'role:developer'], roles: ['editor', 'viewer'] },
      bob: { groups: ['/Sales', 'role:admin', 'role:developer'], roles: ['editor', 'manager'] },
      carol: { groups: ['/Engineering', 'role:developer'], roles: ['editor'] },
      dave: { groups: [], roles: [] },
    };
    for (const [username, want] of Object.entries(expected)) {
      const seed = seeds.find((s) => s.username === username)!;
      const verifier = oidc.randomPKCECodeVerifier();
      const state = oidc.randomState();
      const nonce = oidc.randomNonce();
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: 'http://127.0.0.1:65531/cb',
        scope: 'openid profile groups roles',
        state,
        nonce,
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      });
      const browser = new LoginClient(svc.url);
      const start = await browser.get(url.pathname + url.search);
      const page = await browser.get(start.location!);
      const signedIn = await browser.post(`${new URL(start.location!, svc.url).pathname}/login`, {
        csrf: csrfOf(page.text),
        loginName: `${username}@${primaryDomain}`,
        password: seed.password,
      });
      const callback = (await browser.follow(signedIn)).location ?? '';
      assert.ok(callback.startsWith('http://127.0.0.1:65531/cb?'), `${username}: back at the app: ${callback}`);
      const tokens = await oidc.authorizationCodeGrant(config, new URL(callback), {
        pkceCodeVerifier: verifier,
        expectedState: state,
        expectedNonce: nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims()!;
      assert.equal(claims.sub, idOf(username), `${username}: the same sub`);
      assert.deepEqual(((claims.groups as string[]) ?? []).sort(), want.groups, `${username}: groups in the ID token`);
      assert.deepEqual(claims.roles, want.roles, `${username}: roles in the ID token`);
      const info = await oidc.fetchUserInfo(config, tokens.access_token, idOf(username));
      assert.deepEqual(info.roles, want.roles, `${username}: roles at userinfo`);
    }
  });

  it('a second run changes nothing and says so; a dry run of a new realm writes nothing but its report', async () => {
    const before = await domainState(svc);
    const second = await migrate(svc, { source: 'keycloak', document: realm, orgId });
    assert.deepEqual(second.counts.user, { created: 0, updated: 0, unchanged: 6, failed: 1 });
    assert.deepEqual(second.counts.group, { created: 0, updated: 0, unchanged: 5, failed: 0 });
    assert.deepEqual(second.counts.client, { created: 0, updated: 0, unchanged: 2, failed: 0 });
    assert.equal(await domainState(svc), before);

    const fresh = await keycloakRealm(unique('dry').toLowerCase(), seeds.slice(0, 3));
    const dry = await migrate(svc, { source: 'keycloak', document: fresh, options: { dryRun: true } });
    assert.equal(dry.dryRun, true);
    assert.equal(dry.organization.created, true);
    assert.deepEqual(dry.counts.user, { created: 3, updated: 0, unchanged: 0, failed: 0 });
    assert.deepEqual(dry.counts.group, { created: 5, updated: 0, unchanged: 0, failed: 0 });
    assert.equal(await domainState(svc), before, 'nothing written');
    const listed = await svc.api('GET', '/admin/v1/migrations?limit=10', { token: svc.adminToken });
    assert.equal(listed.status, 200, listed.text);
    assert.equal(listed.body.migrations[0].migrationId, dry.migrationId, 'newest first');

    // The same realm for real: a new organization named after it, the same counts.
    const real = await migrate(svc, { source: 'keycloak', document: fresh });
    assert.equal(real.organization.created, true);
    assert.equal(real.organization.name, fresh.displayName);
    assert.deepEqual(real.counts.user, dry.counts.user);
    assert.deepEqual(real.counts.group, dry.counts.group);
    const again = await migrate(svc, { source: 'keycloak', document: fresh });
    assert.equal(again.organization.id, real.organization.id, 'found again by the realm id');
    assert.deepEqual(again.counts.user, { created: 0, updated: 0, unchanged: 3, failed: 0 });
  });

  it('bad input is a 400 or 413 naming the problem, and changes nothing; only an IAM_OWNER may run or read it', async () => {
    const orgOwner = await createCaller(svc, orgId, { org: ['ORG_OWNER'] });
    const before = await domainState(svc);
    const noName = await keycloakRealm(unique('bad').toLowerCase(), seeds.slice(0, 2));
    delete (noName.users as Record<string, unknown>[])[1].username;
    const cases: [string, Parameters<TestService['api']>[2], number, RegExp][] = [
      ['not JSON', { rawBody: '{"source": "keycloak", "document": {' }, 400, /JSON/i],
      ['an unknown source', { body: { source: 'okta', document: {} } }, 400, /source must be one of the following values: keycloak/],
      ['no document', { body: { source: 'keycloak' } }, 400, /document: must be a JSON object/],
      ['a user without a name', { body: { source: 'keycloak', document: noName } }, 400, /document\.users\[1\]\.username: is required/],
      ['a field of the wrong type', { body: { source: 'keycloak', document: { realm: 'x', groups: {} } } }, 400, /document\.groups: must be an array/],
      ['an unknown option', { body: { source: 'keycloak', document: { realm: 'x' }, options: { everything: true } } }, 400, /everything/],
      ['a document over the limit', { body: { source: 'keycloak', document: { realm: 'x', pad: 'x'.repeat(1_100_000) } } }, 413, /too large|limit/i],
    ];
    for (const [what, options, status, message] of cases) {
      const res = await svc.api('POST', '/admin/v1/migrations', { token: svc.adminToken, ...options });
      assert.equal(res.status, status, `${what}: ${res.text.slice(0, 300)}`);
      assert.match(res.text, message, what);
    }
    for (const [method, path] of [
      ['POST', '/admin/v1/migrations'],
      ['GET', '/admin/v1/migrations'],
      ['GET', `/admin/v1/migrations/${first.migrationId}`],
    ]) {
      const res = await svc.api(method, path, { token: orgOwner.token, body: method === 'POST' ? { source: 'keycloak', document: realm } : undefined });
      assert.equal(res.status, 403, `${method} ${path}: ${res.text}`);
      assert.equal((await svc.api(method, path, {})).status, 401);
    }
    assert.equal((await svc.api('GET', '/admin/v1/migrations/no-such-run', { token: svc.adminToken })).status, 404);
    assert.equal(await domainState(svc), before);
  });
});
