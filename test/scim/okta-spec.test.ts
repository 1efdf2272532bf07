import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { run } from './child-process.js';
import { conformancePath, skipWithoutConformance } from '../support/conformance.js';
import { createUser, scimTenant, userBody } from './scim-helpers.js';
import { useService } from '../support/fixtures.js';

describe("Okta's SCIM 2.0 spec test (Runscope)", { skip: skipWithoutConformance('okta') }, () => {
  const svc = useService();

  it('reports 0 failed', async () => {
    const runner = conformancePath('okta', 'runscope-runner.mjs');
    const spec = conformancePath('okta', 'official-Okta-SCIM-20-SPEC-Test.json');
    const t = await scimTenant(svc);
    // The test's first step reads an existing user, as an Okta admin's app would find one.
    const existing = await createUser(t, userBody('existing.user@example.com'));
    // Its optional Groups step lists the groups Okta would push: one with that user as member.
    const group = await t.scim('POST', '/Groups', {
      body: { schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'], displayName: 'Okta pushed group', members: [{ value: existing.id }] },
    });
    assert.equal(group.status, 201, group.text);
    const { output } = await run(process.execPath, [runner, spec, `${svc.url}${t.base}`, `Bearer ${t.token}`]);
    const summary = /(\d+) passed, (\d+) failed/.exec(output);
    assert.ok(summary, output);
    assert.equal(Number(summary[2]), 0, output);
    assert.ok(Number(summary[1]) > 30, output);
  });
});
