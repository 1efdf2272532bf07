import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import { createOrg, unique } from '../support/fixtures.js';
import { PASSWORD, createHuman } from '../oidc/support/oidc-fixtures.js';
import { signIn } from '../oidc/support/sign-in.js';
import { startPostReceiver } from '../support/post-receiver.js';
import { eventually, processSetup, remoteService } from './faults.helpers.js';
import type { ProcessSetup } from './faults.helpers.js';

const PEOPLE = 5;
const RP = 'http://127.0.0.1:65530';

/**
 * An RP's logout endpoint that first hangs (keeps every request open, as an RP that stopped answering), then answers
 * 200; it records the `jti` of every token it got and whether it answered it.
 */
async function hangingReceiver() {
  const received: { jti: string; answered: boolean }[] = [];
  const held = new Set<ServerResponse>();
  let hanging = true;
  const receiver = await startPostReceiver(
    (path) => path === '/bcl',
    ({ body }, response) => {
      const token = new URLSearchParams(body).get('logout_token') ?? '';
      received.push({ jti: String(decodeJwt(token).jti), answered: !hanging });
      if (!hanging) return 200;
      held.add(response);
      return undefined;
    },
  );
  return {
    url: `${receiver.origin}/bcl`,
    received,
    answerFromNowOn() {
      hanging = false;
      for (const res of held) res.destroy();
    },
    close: () => receiver.close(),
  };
}

/**
 * kill -9 with logout tokens owed (docs/oauth-profiles.md, "Delivery"): none is lost. The first process ends sessions
 * while the RP hangs (a token is held under its lease, the others wait); it is killed; a second process sends them
 * all — the held one once its lease has run out. Delivery is at least once: the RP may have seen the held token, never
 * answered, and gets it again (same `jti`).
 */
describe('faults: kill -9 with logout tokens owed loses none', () => {
  let setup: ProcessSetup;
  let receiver: Awaited<ReturnType<typeof hangingReceiver>>;
  before(async () => {
    receiver = await hangingReceiver();
    setup = await processSetup({
      OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
      BACKCHANNEL_LOGOUT_POLL_MS: '50',
      BACKCHANNEL_LOGOUT_LEASE_MS: '2000',
      BACKCHANNEL_LOGOUT_RETRY_BASE_MS: '100',
    });
  });
  after(async () => {
    await setup?.cleanup();
    await receiver?.close();
  });

  it(`${PEOPLE} users deactivated, the sender killed mid-attempt: every logout token is taken after the restart`, async () => {
    const first = await setup.spawn();
    const svc = remoteService(first.url, setup.adminToken());
    const org = await createOrg(svc);
    const project = await svc.api('POST', `/management/v1/orgs/${org.id}/projects`, { token: svc.adminToken, body: { name: unique('project') } });
    const app = await svc.api('POST', `/management/v1/orgs/${org.id}/projects/${project.body.id}/apps/oidc`, {
      token: svc.adminToken,
      body: {
        name: 'rp',
        redirectUris: [`${RP}/cb`],
        responseTypes: ['code'],
        grantTypes: ['authorization_code'],
        authMethod: 'client_secret_basic',
        devMode: true,
        backchannelLogoutUri: receiver.url,
      },
    });
    assert.equal(app.status, 201, app.text);
    const users: string[] = [];
    for (let i = 0; i < PEOPLE; i++) {
      const user = await createHuman(svc, org.id);
      const { tokens } = await signIn(svc, {
        clientId: app.body.clientId,
        clientSecret: app.body.clientSecret,
        redirectUri: `${RP}/cb`,
        loginName: `${user.userName}@${org.primaryDomain}`,
        password: PASSWORD,
      });
      assert.ok(tokens);
      users.push(user.userId);
    }
    for (const userId of users)
      assert.equal((await svc.api('POST', `/management/v1/orgs/${org.id}/users/${userId}/deactivate`, { token: svc.adminToken, body: {} })).status, 200);

    const rows = () =>
      setup.inspect((ds) => ds.query('SELECT id, status, lease_owner FROM backchannel_logouts')) as Promise<
        { id: string; status: string; lease_owner: string | null }[]
      >;
    await eventually('a logout token held by the first process', async () => ((await rows()).some((r) => r.lease_owner !== null) ? true : undefined));
    assert.equal((await first.stop('SIGKILL')).signal, 'SIGKILL');
    receiver.answerFromNowOn();
    const owed = await rows();
    assert.equal(owed.length, PEOPLE, 'one per session');
    assert.ok(
      owed.every((r) => r.status === 'pending'),
      'none delivered before the kill',
    );

    await setup.spawn();
    await eventually('every logout token delivered', async () => ((await rows()).every((r) => r.status === 'sent') ? true : undefined), 30_000);
    const taken = new Set(receiver.received.filter((r) => r.answered).map((r) => r.jti));
    assert.deepEqual([...taken].sort(), owed.map((r) => r.id).sort(), 'each owed token taken, under its own jti');
  });
});
