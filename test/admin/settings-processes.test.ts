import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually, processSetup, remoteService } from '../faults/faults.helpers.js';
import type { ProcessSetup } from '../faults/faults.helpers.js';
import { createHuman, createMachine, PASSWORD } from '../oidc/support/oidc-fixtures.js';
import type { TestService } from '../support/service.js';

/** The seconds between a JWT's `iat` and `exp`. */
function lifetimeOf(jwt: string): number {
  const claims = JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString());
  return claims.exp - claims.iat;
}

/**
 * Settings are read on use in every process (docs/operations.md, "Settings"): two services on one database, the
 * access token lifetime changed through one applies to the next token the other issues within about a second.
 */
describe('instance settings across two processes on one database', () => {
  let setup: ProcessSetup;
  let a: TestService;
  let b: TestService;
  let machine: { clientId: string; clientSecret: string };
  let orgId: string;

  before(async () => {
    setup = await processSetup();
    const first = await setup.spawn();
    const second = await setup.spawn();
    a = remoteService(first.url, setup.adminToken());
    b = remoteService(second.url, setup.adminToken());
    const orgs = await a.api('GET', '/admin/v1/orgs', { token: a.adminToken });
    orgId = orgs.body.orgs.find((o: { name: string }) => o.name === 'default').id;
    machine = await createMachine(a, orgId, 'jwt');
  });
  after(() => setup?.cleanup());

  /** The lifetime of an access token `svc` issues by client_credentials. */
  async function accessTokenLifetime(svc: TestService): Promise<number> {
    const res = await fetch(new URL('/oauth/v2/token', svc.url), {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${machine.clientId}:${machine.clientSecret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ grant_type: 'client_credentials' }),
    });
    const body = await res.json();
    assert.equal(res.status, 200, JSON.stringify(body));
    return lifetimeOf(body.access_token);
  }

  it('an access token lifetime changed through one process applies to the next token of the other within a second', async () => {
    // The other process has read the settings already: what it holds must expire, not merely be read late.
    assert.equal(await accessTokenLifetime(b), 12 * 3600);
    const changed = await a.api('PATCH', '/admin/v1/settings', { token: a.adminToken, body: { tokens: { accessTokenSeconds: 600 } } });
    assert.equal(changed.status, 200, changed.text);
    const at = Date.now();
    assert.equal(await accessTokenLifetime(a), 600, 'the process that made the change applies it at once');
    await eventually('the other process issues the new lifetime', async () => ((await accessTokenLifetime(b)) === 600 ? true : undefined), 3_000, 50);
    const took = Date.now() - at;
    assert.ok(took <= 1_500, `applied after ${took} ms`);
    const read = await b.api('GET', '/admin/v1/settings', { token: b.adminToken });
    assert.equal(read.body.tokens.accessTokenSeconds, 600);
  });

  it('a password history turned on through one process refuses a reused password in the other within a second', async () => {
    const user = await createHuman(a, orgId);
    const setInB = () => b.api('PUT', `/management/v1/orgs/${orgId}/users/${user.userId}/password`, { token: b.adminToken, body: { password: PASSWORD } });
    assert.equal((await setInB()).status, 200, 'without a history the same password may be set again');
    const changed = await a.api('PATCH', '/admin/v1/settings', { token: a.adminToken, body: { passwordPolicy: { historyCount: 1 } } });
    assert.equal(changed.status, 200, changed.text);
    const at = Date.now();
    await eventually('the other process refuses the current password', async () => ((await setInB()).status === 400 ? true : undefined), 3_000, 50);
    const took = Date.now() - at;
    assert.ok(took <= 1_500, `applied after ${took} ms`);
  });
});
