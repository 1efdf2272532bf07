import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { issueToken, organization, publicClient, register, setMode } from './support/dynamic-registration.js';
import type { Organization } from './support/dynamic-registration.js';
import { countRows, useService } from '../support/fixtures.js';

/** Members an RFC 7591 §3.2.1 / RFC 7592 §3 answer adds to the client's stored metadata. */
const ANSWER_MEMBERS = ['client_id', 'client_id_issued_at', 'registration_access_token', 'registration_client_uri'];

/**
 * docs/agents.md, "Dynamic registration": what a registration answers is what was stored, a client's name is text a
 * person can read as it is, and an initial access token registers as many clients as it was issued for.
 */
describe('dynamic client registration: answers, names and initial access token uses', () => {
  const svc = useService({ DYNAMIC_REGISTRATION_RATE_LIMIT_PER_MINUTE: '100000' });
  let a: Organization;

  before(async () => {
    a = await organization(svc);
    await setMode(svc, a.project.orgId, 'initialAccessToken');
  });

  const storedMetadata = async (clientId: string): Promise<Record<string, unknown>> => {
    const [row] = await svc.dataSource.query('SELECT metadata FROM dynamic_clients WHERE client_id = ?', [clientId]);
    return typeof row.metadata === 'string' ? JSON.parse(row.metadata) : row.metadata;
  };
  const onlyStored = (answer: Record<string, unknown>, stored: Record<string, unknown>, what: string) => {
    const extra = Object.keys(answer).filter((k) => !ANSWER_MEMBERS.includes(k) && !(k in stored));
    assert.deepEqual(extra, [], `${what}: members that were not stored`);
  };

  it('the registration, read and update answers carry only stored members, never portcullis_*', async () => {
    const sent = publicClient({ portcullis_org_id: 'another-org', portcullis_kind: 'api', portcullis_api_access: true });
    const created = await register(svc, sent, await issueToken(svc, a.project.orgId));
    assert.equal(created.status, 201, created.text);
    const { client_id: clientId, registration_access_token: rat, registration_client_uri: uri } = created.body;
    const stored = await storedMetadata(clientId);
    assert.deepEqual(
      Object.keys(stored).filter((k) => k.startsWith('portcullis_')),
      [],
    );
    onlyStored(created.body, stored, 'registration');
    const path = new URL(uri).pathname;
    const read = await svc.api('GET', path, { token: rat });
    assert.equal(read.status, 200, read.text);
    onlyStored(read.body, stored, 'read');
    const updated = await svc.api('PUT', path, { token: rat, body: { ...publicClient({ client_name: 'Renamed' }), client_id: clientId } });
    assert.equal(updated.status, 200, updated.text);
    onlyStored(updated.body, await storedMetadata(clientId), 'update');
  });

  it('a client_name with control, format or bidi characters, or over 100 characters: invalid_client_metadata, nothing stored', async () => {
    const hostile = ['Claude \u202Eedoc', 'Verified\u200B by Portcullis', 'Bell\u0007', 'Isolate \u2067x\u2069', 'x'.repeat(101)];
    const before = await countRows(svc, 'dynamic_clients');
    for (const client_name of hostile) {
      const res = await register(svc, publicClient({ client_name }), await issueToken(svc, a.project.orgId));
      assert.equal(res.status, 400, `${JSON.stringify(client_name)}: ${res.text}`);
      assert.equal(res.body.error, 'invalid_client_metadata');
      assert.match(res.body.error_description, /client_name/);
    }
    assert.equal(await countRows(svc, 'dynamic_clients'), before);

    const created = await register(svc, publicClient({ client_name: 'Ünïcödé agent ✓'.padEnd(100, '.') }), await issueToken(svc, a.project.orgId));
    assert.equal(created.status, 201, created.text);
    const path = new URL(created.body.registration_client_uri).pathname;
    const renamed = await svc.api('PUT', path, {
      token: created.body.registration_access_token,
      body: { ...publicClient({ client_name: 'Agent\u202E' }), client_id: created.body.client_id },
    });
    assert.equal(renamed.status, 400, renamed.text);
    assert.equal(renamed.body.error, 'invalid_client_metadata');
    assert.equal((await storedMetadata(created.body.client_id)).client_name, 'Ünïcödé agent ✓'.padEnd(100, '.'), 'the stored name is unchanged');
  });

  it('an initial access token registers one client, or `uses` clients (1 to 100, validated)', async () => {
    const url = `/management/v1/orgs/${a.project.orgId}/agent-registration-tokens`;
    for (const uses of [0, 101, 1.5, '2', -1]) {
      const res = await svc.api('POST', url, { token: svc.adminToken, body: { uses } });
      assert.equal(res.status, 400, `${JSON.stringify(uses)}: ${res.text}`);
      assert.match(res.text, /uses/);
    }
    const once = await issueToken(svc, a.project.orgId);
    assert.equal((await register(svc, publicClient(), once)).status, 201);
    const again = await register(svc, publicClient(), once);
    assert.equal(again.status, 401, again.text);
    assert.equal(again.body.error, 'invalid_token');

    const thrice = await issueToken(svc, a.project.orgId, { uses: 3 });
    for (let i = 0; i < 3; i++) assert.equal((await register(svc, publicClient(), thrice)).status, 201, `use ${i + 1}`);
    assert.equal((await register(svc, publicClient(), thrice)).status, 401, 'a fourth use');

    const refusedFirst = await issueToken(svc, a.project.orgId);
    assert.equal((await register(svc, publicClient({ token_endpoint_auth_method: 'client_secret_basic' }), refusedFirst)).status, 400);
    assert.equal((await register(svc, publicClient(), refusedFirst)).status, 201, 'a refused registration uses nothing');
  });

  it('two registrations at once with a one-use token: exactly one succeeds', async () => {
    for (let round = 0; round < 3; round++) {
      const token = await issueToken(svc, a.project.orgId);
      const before = await countRows(svc, 'dynamic_clients');
      const answers = await Promise.all([register(svc, publicClient(), token), register(svc, publicClient(), token)]);
      assert.deepEqual(answers.map((r) => r.status).sort(), [201, 401], answers.map((r) => r.text).join('\n'));
      assert.equal(await countRows(svc, 'dynamic_clients'), before + 1);
    }
  });
});
