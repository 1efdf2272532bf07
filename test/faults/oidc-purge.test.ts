import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { PASSWORD, createApiApp, createHuman, createMachine, createOidcApp, createProject } from '../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';
import { CookieJar } from './cookie-jar.js';
import { eventually } from './faults.helpers.js';
import { useService } from '../support/fixtures.js';
import { PURGE_BATCH, purgeExpiredPayloads } from '../../src/oidc/adapter/oidc-purge.js';
import { UnitOfWork } from '../../src/common/database/unit-of-work.js';
import { WalCheckpointer } from '../../src/common/database/wal-checkpointer.js';

const REDIRECT = 'http://127.0.0.1:65530/cb';
const HOUR = 3_600_000;

/**
 * Expired tokens, codes, sessions and interactions are deleted on a schedule, so the OIDC
 * store does not grow without bound. The purge runs every OIDC_PURGE_INTERVAL_MS (1 s here); "time
 * passing" is simulated by moving rows' expiry into the past, which is all the purge looks at.
 */
describe('faults: expired OIDC state is purged on a schedule', () => {
  const svc = useService({ OIDC_PURGE_INTERVAL_MS: '1000' });
  let web: OidcApp;
  let api: OidcApp;
  let machine: { clientId: string; clientSecret: string };
  let loginName: string;

  before(async () => {
    const project = await createProject(svc);
    web = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' });
    api = await createApiApp(svc, project);
    machine = await createMachine(svc, project.orgId);
    const human = await createHuman(svc, project.orgId);
    loginName = `${human.userName}@${project.primaryDomain}`;
  });

  const basic = (client: { clientId: string; clientSecret?: string }) => `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`;
  const form = (path: string, fields: Record<string, string>, client: { clientId: string; clientSecret?: string }) =>
    svc.api('POST', path, {
      rawBody: new URLSearchParams(fields).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(client) },
    });
  const authorizeUrl = () =>
    `/oauth/v2/authorize?${new URLSearchParams({ client_id: web.clientId, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid', state: 'p' })}`;

  async function clientCredentialsToken(): Promise<string> {
    const res = await form('/oauth/v2/token', { grant_type: 'client_credentials', scope: `urn:portcullis:iam:org:project:id:${api.projectId}:aud` }, machine);
    assert.equal(res.status, 200, res.text);
    return res.body.access_token;
  }

  /** A whole code flow: interaction, session, grant, code, access and ID token rows. */
  async function login(): Promise<void> {
    const jar = new CookieJar();
    const started = await jar.get(svc.url, authorizeUrl());
    const page = await jar.get(svc.url, started.location!);
    const action = /action="([^"]+)"/.exec(page.text)![1].replaceAll('&amp;', '&');
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)![1];
    let hop = await jar.login(svc.url, action, { csrf, loginName, password: PASSWORD });
    while (hop.location && !hop.location.startsWith(REDIRECT)) hop = await jar.get(svc.url, hop.location);
    const code = new URL(hop.location!).searchParams.get('code')!;
    const tokens = await form('/oauth/v2/token', { grant_type: 'authorization_code', code, redirect_uri: REDIRECT }, web);
    assert.equal(tokens.status, 200, tokens.text);
  }

  /** An authorization request whose login is never completed (a closed tab, a bot): leaves an interaction behind. */
  async function abandonedLogin(): Promise<void> {
    const started = await new CookieJar().get(svc.url, authorizeUrl());
    assert.equal(started.status, 303, started.text);
  }

  type Row = { model: string; id_hash: string; expires_at: number | string | null };
  const rows = async (): Promise<Row[]> => svc.dataSource.query('SELECT model, id_hash, expires_at FROM oidc_payloads ORDER BY model, id_hash');
  const key = (r: Row) => `${r.model}/${r.id_hash}`;

  it('deletes rows past their expiry and keeps live ones; every stored row has an expiry', async (t) => {
    const liveToken = await clientCredentialsToken();
    const doomedToken = await clientCredentialsToken();
    for (let i = 0; i < 3; i++) await login();
    for (let i = 0; i < 3; i++) await abandonedLogin();
    const stored = await rows();
    const models = new Set(stored.map((r) => r.model));
    for (const model of ['ClientCredentials', 'Interaction', 'Session', 'Grant', 'AuthorizationCode', 'AccessToken']) {
      assert.ok(models.has(model), `the flows stored a ${model} (stored: ${[...models].join(', ')})`);
    }
    assert.deepEqual(stored.filter((r) => r.expires_at === null).map(key), [], 'nothing is stored without an expiry');

    // Every other row of each model "expires"; the rest stays live. The token we keep must stay live.
    const doomedHashes = new Set<string>();
    const byModel = new Map<string, Row[]>();
    for (const r of stored) byModel.set(r.model, [...(byModel.get(r.model) ?? []), r]);
    for (const list of byModel.values()) list.forEach((r, i) => i % 2 === 0 && doomedHashes.add(key(r)));
    const liveBefore = stored.filter((r) => !doomedHashes.has(key(r)));
    await backdate([...doomedHashes]);
    const tokensActive = async () => (await Promise.all([liveToken, doomedToken].map(async (token) => (await introspect(token)).active))).sort();
    // One of the two client credentials rows was moved into the past (which one depends on the hashes).
    assert.deepEqual(await tokensActive(), [false, true], 'an expired token is inactive at once, before any purge');

    await eventually(
      'the expired rows are deleted by the schedule',
      async () => {
        const left = new Set((await rows()).map(key));
        return [...doomedHashes].every((k) => !left.has(k)) ? true : undefined;
      },
      10_000,
      200,
    );
    const left = new Set((await rows()).map(key));
    assert.deepEqual(
      liveBefore.map(key).filter((k) => !left.has(k)),
      [],
      'live rows are kept',
    );
    t.diagnostic(`purged ${doomedHashes.size} expired rows, kept ${liveBefore.length} live ones (${[...byModel.keys()].join(', ')})`);

    assert.deepEqual(await tokensActive(), [false, true], 'the live token still introspects as active after the purge');
  });

  it('requests that never finish leave only rows that expire: after expiry the store is back to its size', async (t) => {
    const tables: string[] = svc.dataSource.entityMetadatas.map((m) => m.tableName).sort();
    const countAll = async () =>
      Object.fromEntries(
        await Promise.all(tables.map(async (table) => [table, Number((await svc.dataSource.query(`SELECT COUNT(*) AS n FROM ${table}`))[0].n)] as const)),
      );
    const before = await countAll();
    const beforeRows = new Set((await rows()).map(key));

    const N = 20;
    for (let i = 0; i < N; i++) {
      await abandonedLogin();
      await clientCredentialsToken();
      assert.deepEqual(await introspect('not-a-token'), { active: false });
      const wrong = await form('/oauth/v2/token', { grant_type: 'client_credentials' }, { clientId: machine.clientId, clientSecret: 'wrong' });
      assert.equal(wrong.status, 401);
    }
    const afterBurst = await countAll();
    const grown = Object.fromEntries(tables.filter((table) => afterBurst[table] !== before[table]).map((table) => [table, afterBurst[table] - before[table]]));
    t.diagnostic(`rows added by ${N} rounds of abandoned login, token, junk introspection, failed client auth: ${JSON.stringify(grown)}`);
    assert.deepEqual(
      Object.keys(grown).filter((table) => table !== 'oidc_payloads' && table !== 'events'),
      [],
      'only the OIDC store and the audit log grow',
    );

    const added = (await rows()).filter((r) => !beforeRows.has(key(r)));
    assert.deepEqual(added.filter((r) => r.expires_at === null).map(key), [], 'every added row has an expiry');
    await backdate(added.map(key));
    await eventually(
      'the OIDC store is back to its size once the added rows expired',
      async () => ((await countAll()).oidc_payloads === before.oidc_payloads ? true : undefined),
      10_000,
      200,
    );
  });

  it('a backlog of many batches goes entirely, one bounded statement at a time, and live rows stay', async () => {
    // More than the largest batch (2,000 rows), so it takes several statements whatever they are sized to.
    const count = 2_000 + 3 * PURGE_BATCH + 7;
    const past = Date.now() - 2 * HOUR;
    const backlog = Array.from({ length: count }, () => ['AccessToken', `backlog-${randomUUID()}`, '{}', past]);
    for (let i = 0; i < backlog.length; i += 250) {
      const chunk = backlog.slice(i, i + 250);
      await svc.dataSource.query(
        `INSERT INTO oidc_payloads (model, id_hash, payload, expires_at) VALUES ${chunk.map(() => '(?, ?, ?, ?)').join(', ')}`,
        chunk.flat(),
      );
    }
    await svc.dataSource.query('INSERT INTO oidc_payloads (model, id_hash, payload, expires_at) VALUES (?, ?, ?, ?)', [
      'AccessToken',
      'backlog-live',
      '{}',
      Date.now() + HOUR,
    ]);
    const backlogLeft = async () => Number((await svc.dataSource.query("SELECT COUNT(*) AS n FROM oidc_payloads WHERE id_hash LIKE 'backlog-%'"))[0].n);
    // The schedule may already be at work on it; one direct run finishes whatever is left, in batches.
    const purged = await purgeExpiredPayloads(svc.dataSource, svc.app.get(UnitOfWork), { checkpointer: svc.app.get(WalCheckpointer) });
    assert.ok(purged <= count, `purged ${purged}`);
    assert.equal(await backlogLeft(), 1, 'only the live row of the backlog is left');
  });

  async function introspect(token: string): Promise<{ active: boolean }> {
    const res = await form('/oauth/v2/introspect', { token }, api);
    assert.equal(res.status, 200, res.text);
    return res.body;
  }

  /** Moves the rows' expiry two hours into the past: what the purge sees once their time is up. */
  async function backdate(keys: string[]): Promise<void> {
    for (const k of keys) {
      const [model, idHash] = k.split('/');
      await svc.dataSource.query('UPDATE oidc_payloads SET expires_at = ? WHERE model = ? AND id_hash = ?', [Date.now() - 2 * HOUR, model, idHash]);
    }
  }
});
