import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { LoginClient } from '../attack/support/login-client.js';
import { createHuman, createMachine, createOidcApp, createProject, PASSWORD } from '../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';
import { signIn } from '../oidc/support/sign-in.js';
import { createCaller, searchEvents, useService } from '../support/fixtures.js';
import { badRequest, refused, row } from './helpers.js';
import type { Caller } from './helpers.js';

const RP = 'http://127.0.0.1:65530';
const PATH = '/admin/v1/settings';
const DAY = 86_400;

/** What an instance that never changed a setting answers (docs/operations.md, "Settings"). */
const DEFAULTS = {
  tokens: { accessTokenSeconds: 12 * 3600, idTokenSeconds: 12 * 3600, refreshIdleSeconds: 30 * DAY, refreshAbsoluteSeconds: 90 * DAY },
  passwordPolicy: {
    minLength: 8,
    maxLength: 72,
    requireLower: false,
    requireUpper: false,
    requireDigit: false,
    requireSymbol: false,
    historyCount: 0,
    maxAgeDays: 0,
  },
  lockout: { maxPasswordFailures: 10, maxFactorFailures: 10, lockSeconds: 0 },
  registration: { defaultForNewOrganizations: false },
};

/** The seconds between a JWT's `iat` and `exp`. */
function lifetimeOf(jwt: string): number {
  const claims = JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString());
  return claims.exp - claims.iat;
}

/**
 * The instance's settings (docs/operations.md, "Settings"): read and changed by an IAM_OWNER only, bounds named in
 * the 400, each change an event with before and after, and every change applied to the next token, password or
 * new organization.
 */
describe('admin API: instance settings', () => {
  const svc = useService();
  let project: { orgId: string; projectId: string; primaryDomain: string };
  let app: OidcApp;
  let owner: Caller;

  const get = async () => {
    const res = await svc.api('GET', PATH, { token: svc.adminToken });
    assert.equal(res.status, 200, res.text);
    return res.body;
  };
  const patch = async (body: unknown) => {
    const res = await svc.api('PATCH', PATH, { token: svc.adminToken, body });
    assert.equal(res.status, 200, res.text);
    return res.body;
  };

  before(async () => {
    project = await createProject(svc);
    app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic', accessTokenType: 'jwt' }, RP);
    owner = await createCaller(svc, project.orgId, { org: ['ORG_OWNER'] });
  });

  const loginName = (userName: string) => `${userName}@${project.primaryDomain}`;

  /** The login page of an authorization request of `clientId`, as a browser sees it. */
  async function loginPage(clientId: string, redirectUri: string): Promise<string> {
    const browser = new LoginClient(svc.url);
    const { page } = await browser.startLogin({
      client_id: clientId,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: 'openid',
      state: 'st',
      code_challenge: createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url'),
      code_challenge_method: 'S256',
    });
    assert.equal(page.status, 200, page.text.slice(0, 300));
    return page.text;
  }

  /** Whether the login UI accepts the password (303 onwards) or refuses it (401). */
  async function passwordAccepted(userName: string, password: string): Promise<boolean> {
    const browser = new LoginClient(svc.url);
    const { uid, csrf } = await browser.startLogin({
      client_id: app.clientId,
      redirect_uri: `${RP}/cb`,
      response_type: 'code',
      scope: 'openid',
      state: 'st',
      code_challenge: createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url'),
      code_challenge_method: 'S256',
    });
    const posted = await browser.post(`/ui/login/${uid}/login`, { csrf, loginName: loginName(userName), password });
    assert.ok([303, 401].includes(posted.status), `login answered ${posted.status}`);
    return posted.status === 303;
  }

  it("answers today's values as the defaults, registration off for new organizations", async () => {
    assert.deepEqual(await get(), DEFAULTS);
  });

  it('refuses a lifetime out of bounds or of the wrong type with a 400 naming the field; nothing changes', async () => {
    const before = await get();
    const send = (body: unknown) => () => svc.api('PATCH', PATH, { token: svc.adminToken, body });
    await badRequest(svc, ['tokens.accessTokenSeconds'], send({ tokens: { accessTokenSeconds: 30 } }), '30 s');
    await badRequest(svc, ['tokens.accessTokenSeconds'], send({ tokens: { accessTokenSeconds: 400 * DAY } }), '400 days');
    await badRequest(svc, ['tokens.idTokenSeconds'], send({ tokens: { idTokenSeconds: '3600' } }), 'a string');
    await badRequest(svc, ['tokens.refreshIdleSeconds'], send({ tokens: { refreshIdleSeconds: 1.5 } }), 'a fraction');
    await badRequest(
      svc,
      ['tokens.refreshIdleSeconds'],
      send({ tokens: { refreshIdleSeconds: 60 * DAY, refreshAbsoluteSeconds: 30 * DAY } }),
      'idle > absolute',
    );
    await badRequest(svc, ['passwordPolicy.minLength'], send({ passwordPolicy: { minLength: 0 } }), 'min 0');
    await badRequest(svc, ['passwordPolicy.maxLength'], send({ passwordPolicy: { minLength: 20, maxLength: 12 } }), 'max < min');
    await badRequest(svc, ['passwordPolicy.requireDigit'], send({ passwordPolicy: { requireDigit: 'yes' } }), 'not a boolean');
    await badRequest(svc, ['lockout.maxPasswordFailures'], send({ lockout: { maxPasswordFailures: -1 } }), 'negative');
    await badRequest(svc, ['registration.defaultForNewOrganizations'], send({ registration: { defaultForNewOrganizations: null } }), 'null');
    await badRequest(svc, ['tokens'], send({ tokens: 3600 }), 'a section that is no object');
    await badRequest(svc, ['tokens.accessTokenLifetime'], send({ tokens: { accessTokenLifetime: 3600 } }), 'an unknown field');
    // One bad field refuses the whole body: the good one beside it is not applied.
    await badRequest(svc, ['tokens.idTokenSeconds'], send({ tokens: { accessTokenSeconds: 600, idTokenSeconds: 10 } }), 'one bad of two');
    assert.deepEqual(await get(), before);
    assert.equal((await searchEvents(svc, { event_types: ['instance.settings.changed'], limit: 1000 })).length, 0);
  });

  it('is for an IAM_OWNER only: an ORG_OWNER is refused 403 reading and changing', async () => {
    await refused(svc, 403, () => svc.api('GET', PATH, { token: owner.token }));
    await refused(svc, 403, () => svc.api('PATCH', PATH, { token: owner.token, body: { tokens: { accessTokenSeconds: 600 } } }));
    await refused(svc, 401, () => svc.api('GET', PATH));
    assert.deepEqual((await get()).tokens, DEFAULTS.tokens);
  });

  it('writes one event with the settings before and after, naming the editor', async () => {
    const body = await patch({ tokens: { idTokenSeconds: 1800 } });
    assert.equal(body.tokens.idTokenSeconds, 1800);
    assert.deepEqual(body.passwordPolicy, DEFAULTS.passwordPolicy, 'what was not sent keeps its value');
    const [event] = await searchEvents(svc, { event_types: ['instance.settings.changed'], limit: 1000 });
    assert.ok(event, 'an event');
    assert.equal(event.aggregate.id, 'instance');
    const [{ id: adminClientId }] = await svc.dataSource.query("SELECT id FROM users WHERE user_name = 'admin-client'");
    assert.equal(event.editor.userId, adminClientId);
    assert.deepEqual(event.payload.changed, ['tokens.idTokenSeconds']);
    const { before, after } = event.payload as { before: typeof DEFAULTS; after: typeof DEFAULTS };
    assert.deepEqual(before, DEFAULTS);
    assert.deepEqual(after, { ...DEFAULTS, tokens: { ...DEFAULTS.tokens, idTokenSeconds: 1800 } });
    const same = await patch({ tokens: { idTokenSeconds: 1800 } });
    assert.equal(same.tokens.idTokenSeconds, 1800);
    assert.equal((await searchEvents(svc, { event_types: ['instance.settings.changed'], limit: 1000 })).length, 1, 'an unchanged value writes no event');
    await patch({ tokens: { idTokenSeconds: DEFAULTS.tokens.idTokenSeconds } });
  });

  it('applies a new access token lifetime to the next token', async () => {
    const machine = await createMachine(svc, project.orgId, 'jwt');
    const token = async () => {
      const res = await fetch(new URL('/oauth/v2/token', svc.url), {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${machine.clientId}:${machine.clientSecret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'openid' }),
      });
      const body = await res.json();
      assert.equal(res.status, 200, JSON.stringify(body));
      return body;
    };
    assert.equal(lifetimeOf((await token()).access_token), DEFAULTS.tokens.accessTokenSeconds);
    await patch({ tokens: { accessTokenSeconds: 900 } });
    const next = await token();
    assert.equal(lifetimeOf(next.access_token), 900);
    assert.equal(next.expires_in, 900);
    await patch({ tokens: { accessTokenSeconds: DEFAULTS.tokens.accessTokenSeconds } });
  });

  it('keeps a retired signing key published for as long as the longest token lifetime now is', async () => {
    await patch({ tokens: { accessTokenSeconds: 3 * DAY } });
    const rotated = await svc.api('POST', '/admin/v1/keys/rotate', { token: svc.adminToken, body: {} });
    assert.equal(rotated.status, 200, rotated.text);
    const ms = (value: unknown) => (typeof value === 'number' || /^\d+$/.test(String(value)) ? Number(value) : new Date(String(value)).getTime());
    const rows = await svc.dataSource.query('SELECT retired_at, publish_until FROM signing_keys WHERE retired_at IS NOT NULL AND publish_until IS NOT NULL');
    assert.ok(rows.length > 0, 'the rotation retired a key');
    for (const row of rows) assert.ok(ms(row.publish_until) - ms(row.retired_at) >= 3 * DAY * 1000, 'a token of 3 days can still be verified');
    await patch({ tokens: { accessTokenSeconds: DEFAULTS.tokens.accessTokenSeconds } });
  });

  it("gives an application's own lifetimes to its tokens, within the instance's", async () => {
    const base = `/management/v1/orgs/${project.orgId}/projects/${project.projectId}/apps`;
    const own = await createOidcApp(
      svc,
      project,
      { authMethod: 'client_secret_basic', accessTokenType: 'jwt', settings: { tokens: { accessTokenSeconds: 300 } } },
      RP,
    );
    const user = await createHuman(svc, project.orgId);
    const tokensOf = async (client: OidcApp) => {
      const { tokens, error } = await signIn(svc, {
        clientId: client.clientId,
        clientSecret: client.clientSecret,
        redirectUri: `${RP}/cb`,
        loginName: loginName(user.userName),
        password: PASSWORD,
      });
      assert.ok(tokens, error);
      return tokens!;
    };
    const first = await tokensOf(own);
    assert.equal(lifetimeOf(first.access_token), 300, "the application's access token lifetime");
    assert.equal(lifetimeOf(first.id_token!), DEFAULTS.tokens.idTokenSeconds, "the instance's where the application has none");
    assert.equal(lifetimeOf((await tokensOf(app)).access_token), DEFAULTS.tokens.accessTokenSeconds, 'another application keeps the instance');

    // An ORG_OWNER changes them; more than the instance's, or out of bounds, is a 400 naming the field.
    const patchApp = (body: unknown, token = owner.token) => svc.api('PATCH', `${base}/${own.appId}`, { token, body });
    await badRequest(svc, ['tokens.idTokenSeconds'], () => patchApp({ tokens: { idTokenSeconds: 13 * 3600 } }), "over the instance's");
    await badRequest(svc, ['tokens.accessTokenSeconds'], () => patchApp({ tokens: { accessTokenSeconds: 30 } }), '30 s');
    await badRequest(svc, ['tokens.accessTokenSeconds'], () => patchApp({ tokens: { accessTokenSeconds: 'long' } }), 'a string');
    const changed = await patchApp({ tokens: { idTokenSeconds: 600 } });
    assert.equal(changed.status, 200, changed.text);
    assert.deepEqual(changed.body.tokens, { accessTokenSeconds: 300, idTokenSeconds: 600 });
    const second = await tokensOf(own);
    assert.equal(lifetimeOf(second.id_token!), 600);
    const [event] = await searchEvents(svc, { event_types: ['project.application.changed'], aggregate_id: own.appId, limit: 10 });
    assert.deepEqual(event!.payload.tokens, { before: { accessTokenSeconds: 300 }, after: { accessTokenSeconds: 300, idTokenSeconds: 600 } });
    // null gives a lifetime back to the instance.
    assert.equal((await patchApp({ tokens: { accessTokenSeconds: null } })).status, 200);
    assert.equal(lifetimeOf((await tokensOf(own)).access_token), DEFAULTS.tokens.accessTokenSeconds);
    // An application's create with a lifetime over the instance's is refused and creates nothing.
    await badRequest(svc, ['tokens.accessTokenSeconds'], () =>
      svc.api('POST', `${base}/oidc`, {
        token: owner.token,
        body: {
          name: 'too long',
          redirectUris: [`${RP}/cb`],
          responseTypes: ['code'],
          grantTypes: ['authorization_code'],
          authMethod: 'none',
          tokens: { accessTokenSeconds: 91 * DAY },
        },
      }),
    );
  });

  it('applies a password policy change to the next password set', async () => {
    const user = await createHuman(svc, project.orgId);
    const setPassword = (password: string) => () =>
      svc.api('PUT', `/management/v1/orgs/${project.orgId}/users/${user.userId}/password`, { token: svc.adminToken, body: { password } });
    assert.equal((await setPassword('lowercase-only')()).status, 200, 'today: any 8 characters');
    await patch({ passwordPolicy: { minLength: 12, requireDigit: true, requireUpper: true } });
    await badRequest(svc, ['password'], setPassword('Short-1'), 'below the new minimum');
    await badRequest(svc, ['password'], setPassword('No-Digits-At-All'), 'no digit');
    await badRequest(svc, ['password'], setPassword('no-upper-case-9'), 'no uppercase letter');
    assert.equal(await passwordAccepted(user.userName, 'lowercase-only'), true, 'a refused password changes nothing');
    assert.equal((await setPassword('Now-Long-And-9')()).status, 200);
    assert.equal(await passwordAccepted(user.userName, 'Now-Long-And-9'), true);
    const created = await svc.api('POST', `/management/v1/orgs/${project.orgId}/users/human`, {
      token: svc.adminToken,
      body: {
        userName: 'policy-check',
        profile: { firstName: 'A', lastName: 'B' },
        email: { email: 'policy@example.com', isEmailVerified: true },
        password: 'weakpassword',
      },
    });
    assert.equal(created.status, 400, 'a new user is held to the policy too');
    await patch({ passwordPolicy: DEFAULTS.passwordPolicy });
  });

  it('applies a lockout change to the next failed check', async () => {
    await patch({ lockout: { maxPasswordFailures: 2 } });
    const user = await createHuman(svc, project.orgId);
    assert.equal(await passwordAccepted(user.userName, 'Wrong-Password-1'), false);
    assert.equal((await row(svc, 'SELECT state FROM users WHERE id = ?', [user.userId])).state, 'active');
    assert.equal(await passwordAccepted(user.userName, 'Wrong-Password-2'), false);
    assert.equal((await row(svc, 'SELECT state FROM users WHERE id = ?', [user.userId])).state, 'locked', 'locked at the second failure');
    assert.equal(await passwordAccepted(user.userName, PASSWORD), false, 'locked: refused whatever the password');
    await patch({ lockout: { maxPasswordFailures: DEFAULTS.lockout.maxPasswordFailures } });
  });

  it('offers no registration in a new organization until the setting or its login policy says so', async () => {
    const fresh = await createProject(svc);
    const client = await createOidcApp(svc, fresh, { authMethod: 'none' }, RP);
    assert.doesNotMatch(await loginPage(client.clientId, `${RP}/cb`), /Create an account/);
    const policy = await svc.api('GET', `/management/v1/orgs/${fresh.orgId}/login-policy`, { token: svc.adminToken });
    assert.equal(policy.body.allowRegistration, false);

    await patch({ registration: { defaultForNewOrganizations: true } });
    const open = await createProject(svc);
    const openClient = await createOidcApp(svc, open, { authMethod: 'none' }, RP);
    assert.match(await loginPage(openClient.clientId, `${RP}/cb`), /Create an account/);
    assert.doesNotMatch(await loginPage(client.clientId, `${RP}/cb`), /Create an account/, 'an existing organization keeps its policy');
    await patch({ registration: { defaultForNewOrganizations: false } });
  });

  it("offers no registration on a fresh instance's console login page", async () => {
    const callback = `${svc.config.publicUrl.replace(/\/$/, '')}/console/callback`;
    assert.doesNotMatch(await loginPage('console', callback), /Create an account/);
  });
});
