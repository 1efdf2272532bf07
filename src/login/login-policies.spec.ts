import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_LOGIN_POLICY } from '../users/login-policy.service.js';
import type { LoginPolicy, LoginPolicyService } from '../users/login-policy.service.js';
import type { Interaction } from './login-interactions.js';
import { LoginPolicies } from './login-policies.js';

const interaction = (uid: string): Interaction => ({ uid, prompt: { name: 'login', reasons: [] }, params: {} }) as unknown as Interaction;

/** A policy store whose answer can change between reads, counting its reads. */
function store() {
  const reads: string[] = [];
  let current: LoginPolicy = { ...DEFAULT_LOGIN_POLICY };
  const service = { get: async (orgId: string) => (reads.push(orgId), { ...current }) } as unknown as LoginPolicyService;
  return { reads, service, change: (policy: Partial<LoginPolicy>) => (current = { ...current, ...policy }) };
}

describe('LoginPolicies: the login policy once per request of the login UI', () => {
  it('reads once for the steps of one request, per organization', async () => {
    const { reads, service } = store();
    const policies = new LoginPolicies(service);
    const request = interaction('a');
    const answers = await Promise.all([policies.of(request, 'org-1'), policies.of(request, 'org-1'), policies.of(request, 'org-2')]);
    await policies.of(request, 'org-1');
    assert.deepEqual(reads, ['org-1', 'org-2']);
    assert.equal(answers[0], answers[1]);
  });

  it('reads again for the next request, which sees a changed policy', async () => {
    const { reads, service, change } = store();
    const policies = new LoginPolicies(service);
    assert.equal((await policies.of(interaction('uid-1'), 'org-1')).passwordLogin, true);
    change({ passwordLogin: false });
    // The next request of the same sign-in loads its Interaction afresh: a new object.
    assert.equal((await policies.of(interaction('uid-1'), 'org-1')).passwordLogin, false);
    assert.deepEqual(reads, ['org-1', 'org-1']);
  });
});
