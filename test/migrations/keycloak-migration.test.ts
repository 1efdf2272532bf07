import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import * as oidc from 'openid-client';
import { Secret, TOTP } from 'otpauth';
import { LoginClient, csrfOf } from '../attack/support/login-client.js';
import { createCaller, createOrg, searchEvents, unique, useService } from '../support/fixtures.js';
import type { TestService } from '../support/service.js';
import { createOidcApp, createProject, discover, postForm } from '../oidc/support/oidc-fixtures.js';
import { SignInFlow, factorIdOf, setLoginPolicy, totpCode, totpSecretOf } from '../oidc/support/second-factor.js';
import { FederatedBrowser } from '../federation/support/federated-browser.js';
import { startUpstreamIdp } from '../federation/support/upstream-idp.js';
import type { UpstreamIdp } from '../federation/support/upstream-idp.js';
import { newSelfSignedCredentials } from '../../src/common/crypto/self-signed-credentials.js';
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
    'saml_applications',
    'machine_secrets',
    'identity_providers',
    'user_identities',
  ]) {
    const [row] = await svc.dataSource.query(`SELECT COUNT(*) AS n FROM ${table}`);
    counts.push(`${table}=${row.n}`);
  }
  const [events] = await svc.dataSource.query(`SELECT COUNT(*) AS n FROM events WHERE type NOT LIKE 'migration.%'`);
  return `${counts.join(' ')} events=${events.n}`;
}

describe('moving in from Keycloak: a realm export, one request, the same sub and passwords', () => {
  // The realm's upstream OpenID Provider runs on a loopback port.
  const svc = useService({ IMPORT_BODY_LIMIT_BYTES: '1000000', OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' });
  let upstream: UpstreamIdp;
  const upstreamSecret = keycloakClientSecret();
  before(async () => {
    upstream = await startUpstreamIdp({ 'alice-upstream-sub': { email: 'alice@upstream.example', email_verified: true } });
  });
  after(() => upstream?.close());
  const totpSecret = keycloakOtpSecret();
  const seeds: SeedUser[] = [
    {
      username: 'alice',
      password: 'alice-Old-Passw0rd',
      hashing: 'pbkdf2-sha256-512bit',
      groups: ['/Engineering/Backend'],
      shopRoles: ['viewer'],
      federated: { corp: 'alice-upstream-sub', google: 'alice-google-sub' },
    },
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
  const reportingSecret = keycloakClientSecret();
  const reportingId = () => `${realm.realm as string}-reporting`;
  let realm: Record<string, unknown>;
  let orgId: string;
  let primaryDomain: string;
  let first: Report;
  const idOf = (username: string) => (realm.users as { id: string; username: string }[]).find((u) => u.username === username)!.id;

  it('migrates the realm into an organization: users with their ids, groups by path, realm roles as role: groups; a taken userName is one failure', async () => {
    realm = await keycloakRealm(unique('acme').toLowerCase(), seeds, shopSecret, reportingSecret, {
      issuer: upstream.issuer,
      clientId: 'keycloak-broker',
      clientSecret: upstreamSecret,
    });
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
    // shop and spa; Keycloak's own clients are skipped and listed as built-in.
    assert.deepEqual(first.counts.client, { created: 2, updated: 0, unchanged: 0, failed: 0 });
    assert.deepEqual(first.counts.role, { created: 3, updated: 0, unchanged: 0, failed: 0 });
    assert.deepEqual(first.counts.grant, { created: 4, updated: 0, unchanged: 0, failed: 0 });
    // The service-account client is a machine user; the SAML client a SAML application.
    assert.deepEqual(first.counts.machine, { created: 1, updated: 0, unchanged: 0, failed: 0 });
    assert.deepEqual(first.counts.samlApp, { created: 1, updated: 0, unchanged: 0, failed: 0 });
    // corp (OpenID Connect, its secret exported) and alice's identity there; Google's secret is masked.
    assert.deepEqual(first.counts.idp, { created: 1, updated: 0, unchanged: 0, failed: 0 });
    assert.deepEqual(first.counts.idpLink, { created: 1, updated: 0, unchanged: 0, failed: 0 });
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

    const [frank] = await svc.dataSource.query('SELECT state, password_change_required AS pcr, mfa_enrolment_required AS mfa FROM users WHERE id = ?', [
      idOf('frank'),
    ]);
    assert.equal(frank.state, 'inactive');
    assert.equal(Number(frank.pcr), 1);
    assert.equal(Number(frank.mfa), 1, 'CONFIGURE_TOTP: a second factor owed');
    const [carol] = await svc.dataSource.query('SELECT preferred_language AS lang, created_at AS created FROM users WHERE id = ?', [idOf('carol')]);
    assert.equal(carol.lang, 'de');
    assert.equal(Number(carol.created), 1_690_000_000_000, 'createdTimestamp kept');
  });

  it('lists what did not carry over by its path, and no report holds a secret, hash or seed', async () => {
    const paths = first.unmapped.map((u) => u.path);
    const carol = (realm.users as { username: string }[]).findIndex((u) => u.username === 'carol');
    const dave = (realm.users as { username: string }[]).findIndex((u) => u.username === 'dave');
    const frank = (realm.users as { username: string }[]).findIndex((u) => u.username === 'frank');
    const alice = (realm.users as { username: string }[]).findIndex((u) => u.username === 'alice');
    for (const path of [
      `users[${carol}].attributes.department`,
      `users[${dave}].credentials[1]`,
      'authenticationFlows',
      'authenticationFlows[1]',
      'clients[6].redirectUris[1]',
      'clients[6].directAccessGrantsEnabled',
      'clients[8].protocolMappers',
      'clients[8].attributes.saml.server.signature.keyinfo.xmlSigKeyInfoKeyNameTransformer',
      `users[${seeds.length}].realmRoles`,
      'identityProviders[0].config.backchannelSupported',
      'identityProviders[1].config.clientSecret',
      'identityProviders[2]',
      'identityProviders[3].config.signingCertificate',
      `users[${alice}].federatedIdentities[1]`,
      'requiredActions',
      'accessTokenLifespan',
    ]) {
      assert.ok(paths.includes(path), `${path} is listed: ${JSON.stringify(paths)}`);
    }
    for (const u of first.unmapped) assert.ok(u.reason.length > 0);
    assert.ok(!paths.includes(`users[${carol}].attributes.locale`), 'locale is mapped');
    assert.ok(!paths.includes(`users[${frank}].requiredActions[1]`), 'CONFIGURE_TOTP is mapped');
    // Keycloak's own clients are listed as built-in, not as failures; what the SAML IdP carries is not listed.
    const clients = realm.clients as { clientId: string }[];
    for (const [i, client] of clients.slice(0, 6).entries()) {
      const listed = first.unmapped.find((u) => u.path === `clients[${i}]`);
      assert.match(listed?.reason ?? '', /^built-in: /, `${client.clientId} is listed as built-in`);
    }
    assert.ok(!first.failures.some((f) => f.kind === 'client'), 'no client failed');
    for (const read of ['saml.signing.certificate', 'saml_name_id_format', 'saml.signature.algorithm', 'saml.force.post.binding'])
      assert.ok(!paths.includes(`clients[8].attributes.${read}`), `${read} is carried`);

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
    assert.ok(!everything.includes(reportingSecret), 'no service-account secret');
    assert.ok(!everything.includes(upstreamSecret), 'no identity provider secret');
    const github = (realm.identityProviders as { config: { clientSecret: string } }[])[2].config.clientSecret;
    assert.ok(!everything.includes(github), 'no secret of an identity provider left behind');
    assert.match(first.unmapped.find((u) => u.path === 'identityProviders[1].config.clientSecret')!.reason, /re-entry/);
    const [idpRow] = await svc.dataSource.query('SELECT client_secret AS s FROM identity_providers WHERE org_id = ?', [orgId]);
    assert.ok(idpRow.s && !String(idpRow.s).includes(upstreamSecret), 'the IdP secret is stored encrypted');
    assert.equal((await svc.dataSource.query('SELECT COUNT(*) AS n FROM identity_providers WHERE org_id = ?', [orgId]))[0].n, 1, 'no IdP with a masked secret');
    const [machineSecret] = await svc.dataSource.query('SELECT secret_hash AS h FROM machine_secrets WHERE user_id = ?', [reportingId()]);
    assert.ok(machineSecret.h && machineSecret.h !== reportingSecret, 'the service-account secret is stored as a hash');
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

  it('a user Keycloak owed CONFIGURE_TOTP must enrol an authenticator at the first sign-in, with the login policy off; then signs in with it', async () => {
    const gina = {
      username: unique('gina').toLowerCase(),
      password: 'gina-Old-Passw0rd',
      hashing: 'pbkdf2-sha256' as const,
      requiredActions: ['CONFIGURE_TOTP'],
    };
    const owed = await keycloakRealm(unique('owed').toLowerCase(), [gina]);
    const report = await migrate(svc, { source: 'keycloak', document: owed });
    assert.deepEqual(report.counts.user, { created: 1, updated: 0, unchanged: 0, failed: 0 });
    assert.ok(!report.unmapped.some((u) => u.path === 'users[0].requiredActions[0]'), 'mapped, not listed');
    const ginaId = (owed.users as { id: string }[])[0].id;
    await setLoginPolicy(svc, report.organization.id, { mfa: 'off' });
    const app = await createOidcApp(svc, await createProject(svc, report.organization.id), { authMethod: 'client_secret_basic' });
    const redirectUri = 'http://127.0.0.1:65530/cb';

    const first = new SignInFlow(svc, app, redirectUri);
    await first.authorize();
    const enrol = await first.next(await first.password(gina.username, gina.password));
    assert.match(enrol.text, /data-totp-enrol/, 'the enrolment page');
    assert.doesNotMatch(enrol.text, /data-mfa-skip/, 'owed: it cannot be skipped');
    const setup = await first.post('enrol/totp', enrol);
    const secret = totpSecretOf(setup);
    const shown = await first.post('enrol/totp/confirm', setup, { factorId: factorIdOf(setup), code: totpCode(secret) });
    assert.equal(shown.status, 200, shown.text.slice(0, 300));
    const { claims } = await first.tokens(await first.post('continue', shown));
    assert.equal(claims.sub, ginaId);
    const [row] = await svc.dataSource.query('SELECT mfa_enrolment_required AS mfa FROM users WHERE id = ?', [ginaId]);
    assert.equal(Number(row.mfa), 0, 'paid by the enrolment');

    // The policy is off: the factor enrolled is not asked for, and nothing is owed any more.
    const second = new SignInFlow(svc, app, redirectUri);
    await second.authorize();
    const again = await second.tokens(await second.password(gina.username, gina.password));
    assert.equal(again.claims.sub, ginaId);
  });

  it('CONFIGURE_TOTP added in Keycloak after the move is owed after the next run, with its event; the password stays as it was', async () => {
    const hugo = { username: unique('hugo').toLowerCase(), password: 'hugo-Old-Passw0rd', hashing: 'pbkdf2-sha256' as const };
    const source = await keycloakRealm(unique('later').toLowerCase(), [hugo]);
    const first = await migrate(svc, { source: 'keycloak', document: source });
    assert.deepEqual(first.counts.user, { created: 1, updated: 0, unchanged: 0, failed: 0 });
    const hugoId = (source.users as { id: string }[])[0].id;
    const [before] = await svc.dataSource.query('SELECT password_hash AS h, mfa_enrolment_required AS mfa FROM users WHERE id = ?', [hugoId]);
    assert.equal(Number(before.mfa), 0);

    (source.users as { requiredActions: string[] }[])[0].requiredActions = ['CONFIGURE_TOTP'];
    const second = await migrate(svc, { source: 'keycloak', document: source, orgId: first.organization.id });
    assert.deepEqual(second.counts.user, { created: 0, updated: 1, unchanged: 0, failed: 0 });
    const [after] = await svc.dataSource.query('SELECT password_hash AS h, mfa_enrolment_required AS mfa FROM users WHERE id = ?', [hugoId]);
    assert.equal(Number(after.mfa), 1, 'a second factor owed');
    assert.equal(after.h, before.h, 'the same password hash: no new password, no ended sessions');
    assert.equal((await searchEvents(svc, { event_types: ['user.human.mfa.enrolment.required'], aggregate_id: hugoId })).length, 1);
    assert.equal((await searchEvents(svc, { event_types: ['user.human.password.changed'], aggregate_id: hugoId })).length, 0);

    await setLoginPolicy(svc, first.organization.id, { mfa: 'off' });
    const app = await createOidcApp(svc, await createProject(svc, first.organization.id), { authMethod: 'client_secret_basic' });
    const flow = new SignInFlow(svc, app, 'http://127.0.0.1:65530/cb');
    await flow.authorize();
    const enrol = await flow.next(await flow.password(hugo.username, hugo.password));
    assert.match(enrol.text, /data-totp-enrol/, 'the enrolment page, though the policy is off');
    assert.doesNotMatch(enrol.text, /data-mfa-skip/, 'owed: it cannot be skipped');

    const third = await migrate(svc, { source: 'keycloak', document: source, orgId: first.organization.id });
    assert.deepEqual(third.counts.user, { created: 0, updated: 0, unchanged: 1, failed: 0 });
  });

  it('a SAML identity provider with its signing certificate is an upstream SAML IdP with its people linked by NameID; one Keycloak did not check is listed', async () => {
    const signer = (await newSelfSignedCredentials('idp.partner.example')).certificatePem.replace(/-----[A-Z ]+-----|\s/g, '');
    const hank = { username: unique('hank').toLowerCase(), password: 'hank-Old-Passw0rd', hashing: 'pbkdf2-sha256' as const };
    const partnerRealm = await keycloakRealm(unique('partner').toLowerCase(), [hank]);
    const saml = (alias: string, config: Record<string, string>) => ({
      alias,
      displayName: `${alias} SAML`,
      providerId: 'saml',
      enabled: true,
      firstBrokerLoginFlowAlias: 'first broker login',
      config: { syncMode: 'LEGACY', principalType: 'SUBJECT', nameIDPolicyFormat: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent', ...config },
    });
    partnerRealm.identityProviders = [
      saml('partner', {
        idpEntityId: 'https://idp.partner.example/saml',
        singleSignOnServiceUrl: 'https://idp.partner.example/sso',
        singleLogoutServiceUrl: 'https://idp.partner.example/slo',
        signingCertificate: signer,
        validateSignature: 'true',
        wantAuthnRequestsSigned: 'true',
        postBindingResponse: 'true',
        allowCreate: 'true',
      }),
      saml('unchecked', {
        idpEntityId: 'https://idp.unchecked.example',
        singleSignOnServiceUrl: 'https://idp.unchecked.example/sso',
        validateSignature: 'false',
      }),
    ];
    const [user] = partnerRealm.users as Record<string, unknown>[];
    user.federatedIdentities = [{ identityProvider: 'partner', userId: 'partner-nameid-hank', userName: 'hank' }];
    const report = await migrate(svc, { source: 'keycloak', document: partnerRealm });
    assert.deepEqual(report.counts.idp, { created: 1, updated: 0, unchanged: 0, failed: 0 });
    assert.deepEqual(report.counts.idpLink, { created: 1, updated: 0, unchanged: 0, failed: 0 });
    const paths = report.unmapped.map((u) => u.path);
    assert.ok(paths.includes('identityProviders[1].config.signingCertificate'), JSON.stringify(report.unmapped));
    assert.ok(paths.includes('identityProviders[0].config.allowCreate'), 'a setting without a counterpart is listed');
    assert.ok(!paths.includes('identityProviders[0]'), 'the signed one came in');

    const idps = await svc.api('GET', `/management/v1/orgs/${report.organization.id}/idps`, { token: svc.adminToken });
    assert.equal(idps.status, 200, idps.text);
    const [partner] = idps.body.idps as Record<string, unknown>[];
    assert.deepEqual(
      [partner.type, partner.name, partner.entityId, partner.ssoUrl, partner.sloUrl, partner.nameIdFormat, partner.signAuthnRequests],
      [
        'saml',
        'partner SAML',
        'https://idp.partner.example/saml',
        'https://idp.partner.example/sso',
        'https://idp.partner.example/slo',
        'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
        true,
      ],
    );
    const [stored] = await svc.dataSource.query('SELECT settings FROM identity_providers WHERE id = ?', [partner.id]);
    assert.deepEqual(JSON.parse(stored.settings).certificates, [signer], 'the signing certificate its responses are checked against');
    const metadata = await fetch(String(partner.spMetadataUrl));
    assert.equal(metadata.status, 200, 'this SP’s metadata, for the partner to trust');
    const [link] = await svc.dataSource.query('SELECT user_id AS u, subject AS s FROM user_identities WHERE idp_id = ?', [partner.id]);
    assert.deepEqual([link.u, link.s], [user.id, 'partner-nameid-hank'], 'hank is linked by the NameID Keycloak knew');

    const again = await migrate(svc, { source: 'keycloak', document: partnerRealm });
    assert.deepEqual(again.counts.idp, { created: 0, updated: 0, unchanged: 1, failed: 0 });
    assert.deepEqual(again.counts.idpLink, { created: 0, updated: 0, unchanged: 1, failed: 0 });
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

  it('a person Keycloak knew through the corp IdP signs in through it here and is the same user with the same sub', async () => {
    const idps = await svc.api('GET', `/management/v1/orgs/${orgId}/idps`, { token: svc.adminToken });
    assert.equal(idps.status, 200, idps.text);
    const corp = (idps.body.idps as { id: string; name: string; issuer: string; clientId: string; authMethod: string; callbackUrl: string }[])[0];
    assert.deepEqual([corp.name, corp.issuer, corp.clientId, corp.authMethod], ['Corp SSO', upstream.issuer, 'keycloak-broker', 'client_secret_post']);
    upstream.addClient({
      client_id: 'keycloak-broker',
      client_secret: upstreamSecret,
      redirect_uris: [corp.callbackUrl],
      token_endpoint_auth_method: 'client_secret_post',
    });
    const app = await createOidcApp(svc, await createProject(svc, orgId), { authMethod: 'client_secret_basic' });
    const browser = new FederatedBrowser(svc, upstream.issuer);
    const done = await browser.signInUpstream(await browser.choose(await browser.authorize(app), corp.id), 'alice-upstream-sub', { declineMfaOffer: true });
    const claims = await browser.tokens(app, done);
    assert.equal(claims.sub, idOf('alice'), 'the sub Keycloak gave her');
    assert.deepEqual(claims.amr, ['fed']);
  });

  it('the service-account client gets a client_credentials token with its old id and secret; a wrong secret is refused', async () => {
    const ask = (secret: string) => postForm(svc, '/oauth/v2/token', { grant_type: 'client_credentials', scope: 'openid' }, { id: reportingId(), secret });
    assert.equal((await ask(`${reportingSecret}x`)).status, 401, 'a wrong secret is refused');
    const res = await ask(reportingSecret);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.token_type, 'Bearer');
    // Keycloak's service accounts get JWT access tokens; here the machine user's client id is its sub.
    const claims = JSON.parse(Buffer.from(String(res.body.access_token).split('.')[1], 'base64url').toString()) as Record<string, unknown>;
    assert.equal(claims.sub, reportingId());
    assert.equal(claims.client_id, reportingId());
    const machine = await svc.api('GET', `/management/v1/orgs/${orgId}/users/${encodeURIComponent(reportingId())}`, { token: svc.adminToken });
    assert.equal(machine.status, 200, machine.text);
    assert.equal(JSON.stringify(machine.body).includes(`service-account-${reportingId()}`), true, machine.text);
  });

  it('the SAML client is a SAML application with its entity id, ACS and logout URLs, certificate and NameID format', async () => {
    const [row] = await svc.dataSource.query(
      `SELECT s.app_id AS appId, a.project_id AS projectId FROM saml_applications s JOIN applications a ON a.id = s.app_id WHERE s.org_id = ? AND s.entity_id = ?`,
      [orgId, 'https://sp.example.com/metadata'],
    );
    assert.ok(row, 'a SAML application of the organization has the entity id');
    const app = await svc.api('GET', `/management/v1/orgs/${orgId}/projects/${row.projectId}/apps/${row.appId}`, { token: svc.adminToken });
    assert.equal(app.status, 200, app.text);
    const saml = realm.clients as { protocol?: string; attributes: Record<string, string> }[];
    const certificate = saml.find((c) => c.protocol === 'saml')!.attributes['saml.signing.certificate'];
    assert.equal(app.body.name, 'Wiki');
    assert.deepEqual(app.body.acsUrls, ['https://sp.example.com/acs']);
    assert.equal(app.body.sloUrl, 'https://sp.example.com/slo');
    assert.equal(app.body.nameIdFormat, 'emailAddress', 'Keycloak’s email NameID format');
    assert.equal(app.body.signAssertion, true);
    assert.equal(app.body.signResponse, true);
    assert.equal(app.body.requireSignedRequests, true, 'Keycloak asked for signed AuthnRequests');
    assert.equal(
      new X509Certificate(app.body.spCertificate).fingerprint256,
      new X509Certificate(Buffer.from(certificate, 'base64')).fingerprint256,
      'the SP’s signing certificate',
    );
    const projects = await svc.api('GET', `/management/v1/orgs/${orgId}/projects/${row.projectId}`, { token: svc.adminToken });
    assert.equal(projects.body.name, 'Wiki');
  });

  it('a second run changes nothing and says so; a dry run of a new realm writes nothing but its report', async () => {
    const before = await domainState(svc);
    const second = await migrate(svc, { source: 'keycloak', document: realm, orgId });
    assert.deepEqual(second.counts.user, { created: 0, updated: 0, unchanged: 6, failed: 1 });
    assert.deepEqual(second.counts.group, { created: 0, updated: 0, unchanged: 5, failed: 0 });
    assert.deepEqual(second.counts.client, { created: 0, updated: 0, unchanged: 2, failed: 0 });
    assert.deepEqual(second.counts.machine, { created: 0, updated: 0, unchanged: 1, failed: 0 });
    assert.deepEqual(second.counts.samlApp, { created: 0, updated: 0, unchanged: 1, failed: 0 });
    assert.deepEqual(second.counts.idp, { created: 0, updated: 0, unchanged: 1, failed: 0 });
    assert.deepEqual(second.counts.idpLink, { created: 0, updated: 0, unchanged: 1, failed: 0 });
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

  it('a changed realm updates what changed, nothing twice: a user, a client’s redirect URIs; a rotated secret is one listed failure', async () => {
    const changed = structuredClone(realm);
    const users = changed.users as { username: string; firstName?: string }[];
    users.find((u) => u.username === 'alice')!.firstName = 'Alicia';
    const shop = (changed.clients as { clientId: string; redirectUris: string[]; secret?: string }[]).find((c) => c.clientId === 'shop')!;
    shop.redirectUris = [...shop.redirectUris, 'http://127.0.0.1:65531/cb2'];
    const [{ n: usersBefore }] = await svc.dataSource.query('SELECT COUNT(*) AS n FROM users');
    const updated = await migrate(svc, { source: 'keycloak', document: changed, orgId });
    assert.deepEqual(updated.counts.user, { created: 0, updated: 1, unchanged: 5, failed: 1 });
    assert.deepEqual(updated.counts.client, { created: 0, updated: 1, unchanged: 1, failed: 0 });
    const [alice] = await svc.dataSource.query('SELECT given_name AS g FROM users WHERE id = ?', [idOf('alice')]);
    assert.equal(alice.g, 'Alicia');
    const [app] = await svc.dataSource.query(`SELECT redirect_uris AS r FROM applications WHERE client_id = 'shop'`);
    assert.ok(JSON.stringify(app.r).includes('65531/cb2'), JSON.stringify(app.r));
    const [{ n: usersAfter }] = await svc.dataSource.query('SELECT COUNT(*) AS n FROM users');
    assert.equal(Number(usersAfter), Number(usersBefore), 'updated, not added');

    const settled = await domainState(svc);
    const again = await migrate(svc, { source: 'keycloak', document: changed, orgId });
    assert.deepEqual(again.counts.user, { created: 0, updated: 0, unchanged: 6, failed: 1 });
    assert.deepEqual(again.counts.client, { created: 0, updated: 0, unchanged: 2, failed: 0 });
    assert.equal(await domainState(svc), settled);

    shop.secret = keycloakClientSecret();
    const rotated = await migrate(svc, { source: 'keycloak', document: changed, orgId });
    assert.deepEqual(rotated.counts.client, { created: 0, updated: 0, unchanged: 1, failed: 1 });
    assert.match(rotated.failures.find((f) => f.kind === 'client')!.message, /secret changed at the source/);
    assert.ok(!JSON.stringify(rotated).includes(shop.secret), 'the new secret is not in the report');
  });

  it('with secrets "rotate" a client gets a new secret, returned once and stored nowhere else; the old one no longer works', async () => {
    const rotating = await keycloakRealm(unique('rot').toLowerCase(), seeds.slice(0, 1), keycloakClientSecret());
    const shop = (rotating.clients as { clientId: string; secret?: string }[]).find((c) => c.clientId === 'shop')!;
    const oldSecret = shop.secret!;
    shop.clientId = unique('shop');
    for (const c of rotating.clients as { clientId: string }[]) if (c.clientId === 'spa') c.clientId = unique('spa');
    const report = await migrate(svc, { source: 'keycloak', document: rotating, options: { secrets: 'rotate' } });
    assert.deepEqual(report.counts.client, { created: 2, updated: 0, unchanged: 0, failed: 0 });
    const issued = (report as Report & { secrets?: { clientId: string; clientSecret: string }[] }).secrets ?? [];
    assert.deepEqual(
      issued.map((s) => s.clientId),
      [shop.clientId, `${rotating.realm as string}-reporting`],
      'only the confidential client and the service account have a secret',
    );
    assert.notEqual(issued[0].clientSecret, oldSecret);
    const stored = await svc.api('GET', `/admin/v1/migrations/${report.migrationId}`, { token: svc.adminToken });
    const events = await svc.dataSource.query('SELECT payload FROM events WHERE payload LIKE ?', [`%${report.migrationId}%`]);
    assert.ok(!JSON.stringify([stored.body, events]).includes(issued[0].clientSecret), 'the new secret is stored nowhere');
    // A token request with a bogus code tells the client's authentication (401 invalid_client) from the grant's (400 invalid_grant).
    const form = { grant_type: 'authorization_code', code: 'bogus', redirect_uri: 'http://127.0.0.1:65531/cb' };
    assert.equal((await postForm(svc, '/oauth/v2/token', form, { id: shop.clientId, secret: oldSecret })).status, 401, 'the old secret is refused');
    const fresh = await postForm(svc, '/oauth/v2/token', form, { id: shop.clientId, secret: issued[0].clientSecret });
    assert.equal(fresh.status, 400, fresh.text);
    assert.equal(fresh.body.error, 'invalid_grant');
  });

  it('a gzipped document is inflated (RFC 9110 §8.4)', async () => {
    const small = await keycloakRealm(unique('gz').toLowerCase(), seeds.slice(0, 1));
    const res = await svc.api('POST', '/admin/v1/migrations', {
      token: svc.adminToken,
      ...gzipped({ source: 'keycloak', document: small, options: { dryRun: true } }),
    });
    assert.equal(res.status, 200, res.text.slice(0, 300));
    assert.equal(res.body.dryRun, true);
    assert.deepEqual(res.body.counts.user, { created: 1, updated: 0, unchanged: 0, failed: 0 });
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
      // The limit counts the inflated bytes: a small compressed body cannot grow past it.
      ['a gzipped document over the limit once inflated', gzipped({ source: 'keycloak', document: { realm: 'x', pad: 'x'.repeat(1_100_000) } }), 413, /limit/],
      ['nesting deeper than 32', { rawBody: `{"source":"keycloak","document":{"realm":"x","a":${'['.repeat(40)}${']'.repeat(40)}}}` }, 400, /deeper than 32/],
      [
        'bytes that are not UTF-8',
        { rawBody: Buffer.concat([Buffer.from('{"source":"keycloak","document":{"realm":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}}')]) },
        400,
        /not valid UTF-8/,
      ],
      ['a NUL character', { rawBody: '{"source":"keycloak","document":{"realm":"x\\u0000"}}' }, 400, /document\.realm: text must be valid Unicode/],
      ['an unknown content encoding', { rawBody: '{}', headers: { 'content-encoding': 'compress' } }, 415, /unsupported content encoding .{0,2}compress/],
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

function gzipped(body: unknown): { rawBody: Uint8Array; headers: Record<string, string> } {
  return { rawBody: gzipSync(JSON.stringify(body)), headers: { 'content-encoding': 'gzip' } };
}
