import assert from 'node:assert/strict';
import { createPrivateKey } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SignJWT } from 'jose';
import { Secret, TOTP } from 'otpauth';
import { DataSource } from 'typeorm';
import { loadConfig } from '../../src/common/config/config.js';
import { dataSourceOptions } from '../../src/common/database/data-source.js';
import { LoginClient } from '../attack/support/login-client.js';
import { createTestDatabase } from '../support/database.js';
import type { TestDatabase } from '../support/database.js';
import { createClient } from '../support/http.js';
import type { ApiClient } from '../support/http.js';
import { spawnService } from '../support/process.js';
import type { ServiceProcess } from '../support/process.js';
import { findSecretsAtRest } from '../support/secret-scan.js';
import { freePort } from '../support/service.js';
import { ENTITIES } from '../../src/entities.js';

const RP = 'http://127.0.0.1:65530';
const PASSWORD = 'Plain-Text-Password-4-Scan';
const ADMIN_PASSWORD = 'bootstrap-admin-password-4-scan';
const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/**
 * Every OIDC flow run against the real process at LOG_LEVEL=debug; then the logs and every row of every
 * table are searched for each password, secret, code, token, session and interaction id and private
 * key the flows used or issued. None may appear (docs/product-rules.md, "OpenID Connect and OAuth": stored as keyed hashes; nothing secret logged).
 */
describe('secrets of the OIDC flows stay out of the logs and the database', () => {
  let proc: ServiceProcess;
  let database: TestDatabase;
  let dataDir: string;
  let api: ApiClient;
  let admin: string;
  const secrets = new Map<string, string>();
  const keep = (name: string, value: unknown) => {
    assert.ok(typeof value === 'string' && value.length >= 16, `${name} was issued: ${String(value)}`);
    secrets.set(name, value);
  };

  async function form(path: string, body: Record<string, string>, basic?: { id: string; secret: string }) {
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
    if (basic) headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(basic.id)}:${encodeURIComponent(basic.secret)}`).toString('base64')}`;
    const res = await fetch(new URL(path, proc.url), { method: 'POST', headers, body: new URLSearchParams(body) });
    const json = await res.json().catch(() => undefined);
    assert.equal(res.status, 200, `${path} ${body.grant_type ?? ''}: ${res.status} ${JSON.stringify(json)}`);
    return json as Record<string, string>;
  }

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'portcullis-secrets-'));
    database = await createTestDatabase();
    const port = await freePort();
    proc = await spawnService(
      {
        DATA_DIR: dataDir,
        LOG_LEVEL: 'debug',
        BOOTSTRAP_ADMIN_PASSWORD: ADMIN_PASSWORD,
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        ...(database.url ? { DATABASE_URL: database.url } : {}),
      },
      { port },
    );
    api = createClient(proc.url);
    admin = readFileSync(join(dataDir, 'admin.pat'), 'utf8').trim();
  });
  after(async () => {
    await proc?.stop();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('code flow, refresh, client credentials, JWT profile, token exchange, userinfo, introspection and revocation', async () => {
    keep('admin PAT', admin);
    keep('bootstrap admin password', ADMIN_PASSWORD);
    keep('master key', readFileSync(join(dataDir, 'master.key'), 'utf8').trim());
    const post = async (path: string, body: unknown) => {
      const res = await api('POST', path, { token: admin, body });
      assert.ok(res.status < 300, `${path}: ${res.status} ${res.text}`);
      return res.body;
    };
    assert.equal((await api('PUT', '/admin/v1/features', { token: admin, body: { tokenExchange: true } })).status, 200);
    const org = await post('/admin/v1/orgs', { name: 'secrets' });
    const m = `/management/v1/orgs/${org.id}`;
    const project = await post(`${m}/projects`, { name: 'p' });
    const app = await post(`${m}/projects/${project.id}/apps/oidc`, {
      name: 'web',
      redirectUris: [`${RP}/cb`],
      responseTypes: ['code'],
      grantTypes: ['authorization_code', 'refresh_token', EXCHANGE],
      authMethod: 'client_secret_basic',
      devMode: true,
    });
    keep('client secret', app.clientSecret);
    const basic = { id: app.clientId, secret: app.clientSecret };
    const human = await post(`${m}/users/human`, {
      userName: 'alice',
      profile: { firstName: 'A', lastName: 'L' },
      email: { email: 'alice@example.com', isEmailVerified: true },
      password: PASSWORD,
    });
    keep('user password', PASSWORD);

    // Authorization code flow in a browser-like client.
    const browser = new LoginClient(proc.url);
    const { uid, csrf } = await browser.startLogin({
      client_id: app.clientId,
      redirect_uri: `${RP}/cb`,
      response_type: 'code',
      scope: 'openid profile offline_access',
      state: 'state-4-scan',
    });
    keep('interaction id', uid);
    keep('login CSRF value', csrf);
    const done = await browser.follow(await browser.post(`/ui/login/${uid}/login`, { csrf, loginName: `alice@${org.primaryDomain}`, password: PASSWORD }));
    const code = new URL(done.location!).searchParams.get('code');
    keep('authorization code', code);
    for (const [name, value] of browser.cookies) if (!name.endsWith('.sig')) keep(`cookie ${name}`, value);
    const tokens = await form('/oauth/v2/token', { grant_type: 'authorization_code', code: code!, redirect_uri: `${RP}/cb` }, basic);
    keep('access token', tokens.access_token);
    keep('refresh token', tokens.refresh_token);
    keep('id token', tokens.id_token);
    const refreshed = await form('/oauth/v2/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, basic);
    keep('refreshed access token', refreshed.access_token);
    keep('rotated refresh token', refreshed.refresh_token);
    const userinfo = await fetch(new URL('/oidc/v1/userinfo', proc.url), { headers: { authorization: `Bearer ${refreshed.access_token}` } });
    assert.equal(userinfo.status, 200);
    assert.equal((await form('/oauth/v2/introspect', { token: refreshed.access_token }, basic)).active, true as unknown as string);

    // Token exchange of the user's access token.
    const exchanged = await form(
      '/oauth/v2/token',
      { grant_type: EXCHANGE, subject_token: refreshed.access_token, subject_token_type: 'urn:ietf:params:oauth:token-type:access_token' },
      basic,
    );
    keep('exchanged token', exchanged.access_token);

    // Client credentials of a machine user.
    const machine = await post(`${m}/users/machine`, { userName: 'robot', name: 'robot', accessTokenType: 'opaque' });
    const machineSecret = await post(`${m}/users/${machine.userId}/secret`, {});
    keep('machine client secret', machineSecret.clientSecret);
    const cc = await form(
      '/oauth/v2/token',
      { grant_type: 'client_credentials', scope: 'openid' },
      { id: machineSecret.clientId, secret: machineSecret.clientSecret },
    );
    keep('client credentials token', cc.access_token);

    // JWT profile (RFC 7523) with a machine user key.
    const key = await post(`${m}/users/${machine.userId}/keys`, {});
    keep('machine private key', key.keyDetails.key);
    keep('machine private key body', key.keyDetails.key.split('\n').filter((l: string) => l && !l.startsWith('-----'))[1]);
    const now = Math.floor(Date.now() / 1000);
    const assertion = await new SignJWT({})
      .setJti(`jti-${now}`)
      .setProtectedHeader({ alg: 'RS256', kid: key.keyId })
      .setIssuer(machine.userId)
      .setSubject(machine.userId)
      .setAudience(`http://127.0.0.1:${proc.port}`)
      .setIssuedAt(now)
      .setExpirationTime(now + 600)
      .sign(createPrivateKey(key.keyDetails.key));
    keep('JWT profile assertion', assertion);
    const jwtProfile = await form('/oauth/v2/token', { grant_type: JWT_BEARER, assertion, scope: 'openid' });
    keep('JWT profile token', jwtProfile.access_token);

    const pat = await post(`${m}/users/${machine.userId}/pats`, {});
    keep('personal access token', pat.token);
    assert.equal((await api('GET', '/admin/v1/orgs', { token: pat.token })).status, 403, 'the PAT was used');

    await form('/oauth/v2/revoke', { token: tokens.refresh_token, token_type_hint: 'refresh_token' }, basic);
    assert.ok(human.userId);

    // A second factor: a TOTP secret and its first code, and the recovery codes (docs/product-rules.md, "Multi-factor sign-in").
    await post(`${m}/users/human`, {
      userName: 'bob',
      profile: { firstName: 'B', lastName: 'M' },
      email: { email: 'bob@example.com', isEmailVerified: true },
      password: PASSWORD,
    });
    const second = new LoginClient(proc.url);
    second.declinesMfaOffer = false;
    const started = await second.startLogin({
      client_id: app.clientId,
      redirect_uri: `${RP}/cb`,
      response_type: 'code',
      scope: 'openid',
      state: 'state-4-scan',
    });
    const offered = await second.post(`/ui/login/${started.uid}/login`, { csrf: started.csrf, loginName: `bob@${org.primaryDomain}`, password: PASSWORD });
    assert.equal(offered.location, `/ui/login/${started.uid}`, 'the enrolment offer');
    const setup = await second.post(`/ui/login/${started.uid}/enrol/totp`, { csrf: started.csrf });
    const totpSecret = /<code data-totp-secret>([A-Z2-7]+)<\/code>/.exec(setup.text)?.[1];
    keep('TOTP secret', totpSecret);
    const factorId = /name="factorId" value="([^"]+)"/.exec(setup.text)?.[1] ?? '';
    const totp = new TOTP({ secret: Secret.fromBase32(totpSecret!), algorithm: 'SHA1', digits: 6, period: 30 }).generate();
    const shown = await second.post(`/ui/login/${started.uid}/enrol/totp/confirm`, { csrf: started.csrf, factorId, code: totp });
    const recoveryCodes = [...shown.text.matchAll(/<code data-recovery-code>([^<]+)<\/code>/g)].map((match) => match[1]);
    assert.equal(recoveryCodes.length, 10, shown.text.slice(0, 300));
    // Codes are shorter than the scan's 16 characters: each is kept as it is shown and without its dashes.
    // (A 6-digit TOTP code is not searched for: timestamps in any dump contain such digit runs by chance.)
    for (const [i, recovery] of recoveryCodes.entries()) {
      secrets.set(`recovery code ${i}`, recovery);
      secrets.set(`recovery code ${i} (typed)`, recovery.replace(/-/g, ''));
    }
  });

  it('none of them is in the debug log', async () => {
    // pino buffers its lines when stdout is a pipe: stopping the process flushes them all, and
    // 'close' (not 'exit') says the pipes were read to the end.
    const closed = new Promise((resolve) => proc.child.once('close', resolve));
    await proc.stop();
    await closed;
    const log = proc.output();
    // The request log has the login UI and the API; oidc-provider's own endpoints are not in it.
    assert.ok(/"path":"\/ui\/login\/:uid\/login"/.test(log) && /"path":"\/management\/v1\//.test(log), 'the request log of the flows was captured');
    const found = [...secrets].filter(([, value]) => log.includes(value)).map(([name]) => name);
    assert.deepEqual(found, []);
  });

  it('none of them is in any row of any table', async () => {
    const config = loadConfig({ DATA_DIR: dataDir, ...(database.url ? { DATABASE_URL: database.url } : {}) });
    const dataSource = await new DataSource(dataSourceOptions(config.database, ENTITIES)).initialize();
    try {
      const found = await findSecretsAtRest(dataSource, [...secrets.values()]);
      const names = found.map((f) => `${f} (${[...secrets].find(([, v]) => f.endsWith(`${v.slice(0, 6)}…`))?.[0]})`);
      assert.deepEqual(names, []);
    } finally {
      await dataSource.destroy();
    }
  });
});
