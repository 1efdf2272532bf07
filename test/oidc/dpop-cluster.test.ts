import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { processSetup, remoteService } from '../faults/faults.helpers.js';
import type { ProcessSetup } from '../faults/faults.helpers.js';
import { freePort } from '../support/service.js';
import { createMachine, createProject } from './support/oidc-fixtures.js';
import { dpopProof, newDpopKey } from './support/dpop-proofs.js';
import type { DpopKey } from './support/dpop-proofs.js';

/**
 * RFC 9449 §11.1 across processes (docs/oauth-profiles.md, "DPoP": a jti used once across processes, a nonce derived from the
 * master key): two service processes of one instance on one database (SQLite file or MariaDB), both behind
 * one PUBLIC_URL as behind a load balancer. A proof accepted by one is refused by the other, even when both
 * see it at once, and a nonce handed out by one is accepted by the other.
 */
describe('DPoP across two processes on one database', () => {
  let setup: ProcessSetup;
  let urls: [string, string];
  let publicUrl: string;
  let machine: { clientId: string; clientSecret: string };

  before(async () => {
    setup = await processSetup();
    const port = await freePort();
    publicUrl = `http://127.0.0.1:${port}`;
    const first = await setup.spawn({ PUBLIC_URL: publicUrl }, { port });
    const second = await setup.spawn({ PUBLIC_URL: publicUrl });
    urls = [first.url, second.url];
    const svc = remoteService(first.url, setup.adminToken());
    const project = await createProject(svc);
    const created = await createMachine(svc, project.orgId);
    const owner = await svc.api('PUT', `/admin/v1/members/${created.userId}`, { token: svc.adminToken, body: { roles: ['IAM_OWNER'] } });
    assert.equal(owner.status, 200, owner.text);
    machine = created;
  });
  after(() => setup?.cleanup());

  const tokenUrl = () => `${publicUrl}/oauth/v2/token`;
  const orgsUrl = () => `${publicUrl}/admin/v1/orgs`;

  async function tokenRequest(at: string, proof: string) {
    const res = await fetch(`${at}/oauth/v2/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${machine.clientId}:${machine.clientSecret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
        dpop: proof,
      },
      body: 'grant_type=client_credentials',
    });
    return { status: res.status, body: (await res.json()) as Record<string, string>, nonce: res.headers.get('dpop-nonce') };
  }

  /** A bound token from the first process, and the nonce it handed out. */
  async function boundToken(key: DpopKey): Promise<{ token: string; nonce: string }> {
    const challenged = await tokenRequest(urls[0], await dpopProof(key, 'POST', tokenUrl()));
    assert.equal(challenged.body.error, 'use_dpop_nonce');
    const issued = await tokenRequest(urls[0], await dpopProof(key, 'POST', tokenUrl(), { nonce: challenged.nonce! }));
    assert.equal(issued.status, 200, JSON.stringify(issued.body));
    return { token: issued.body.access_token, nonce: challenged.nonce! };
  }

  const getOrgs = (at: string, token: string, proof: string) => fetch(`${at}/admin/v1/orgs`, { headers: { authorization: `DPoP ${token}`, dpop: proof } });

  it('a nonce of one process is accepted by the other; a proof used at one is refused by the other', async () => {
    const key = await newDpopKey();
    const { token, nonce } = await boundToken(key);
    const proof = await dpopProof(key, 'GET', orgsUrl(), { token, nonce });
    assert.equal((await getOrgs(urls[1], token, proof)).status, 200, 'the second process accepts the first one’s nonce');
    const replayed = await getOrgs(urls[0], token, proof);
    assert.equal(replayed.status, 401);
    assert.match(replayed.headers.get('www-authenticate') ?? '', /^DPoP error="invalid_dpop_proof"/);
  });

  it('a token endpoint proof used at one process is refused by the other', async () => {
    const key = await newDpopKey();
    const { nonce } = await boundToken(key);
    const proof = await dpopProof(key, 'POST', tokenUrl(), { nonce });
    assert.equal((await tokenRequest(urls[1], proof)).status, 200);
    const replayed = await tokenRequest(urls[0], proof);
    assert.equal(replayed.status, 400);
    assert.equal(replayed.body.error, 'invalid_grant', JSON.stringify(replayed.body));
  });

  it('one proof sent to both processes at once is accepted exactly once', async () => {
    const key = await newDpopKey();
    const { token, nonce } = await boundToken(key);
    for (let round = 0; round < 3; round++) {
      const proof = await dpopProof(key, 'GET', orgsUrl(), { token, nonce });
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => getOrgs(urls[i % 2], token, proof).then((r) => r.status)));
      assert.equal(answers.filter((s) => s === 200).length, 1, `round ${round}: ${answers.join(' ')}`);
      assert.ok(
        answers.every((s) => s === 200 || s === 401),
        answers.join(' '),
      );
      // The token endpoint's proofs go through oidc-provider's ReplayDetection, made atomic (oidc/provider/dpop.ts).
      const tokenProof = await dpopProof(key, 'POST', tokenUrl(), { nonce });
      const issued = await Promise.all(Array.from({ length: 10 }, (_, i) => tokenRequest(urls[i % 2], tokenProof).then((r) => r.status)));
      assert.equal(issued.filter((s) => s === 200).length, 1, `round ${round}, token endpoint: ${issued.join(' ')}`);
    }
  });
});
