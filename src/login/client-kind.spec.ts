import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clientKindOf, mayHoldApiAudience, mayServe } from './client-kind.js';

const user = { orgId: 'org-a' };

describe('clientKindOf: what a client is, from its own metadata', () => {
  it('reads each kind', () => {
    assert.equal(clientKindOf({ portcullis_kind: 'oidc' }), 'application');
    assert.equal(clientKindOf({ portcullis_kind: 'saml' }), 'application');
    assert.equal(clientKindOf({ portcullis_kind: 'api' }), 'application');
    assert.equal(clientKindOf({ portcullis_kind: 'oidc', portcullis_api_access: true }), 'first-party');
    assert.equal(clientKindOf({ portcullis_kind: 'account', portcullis_api_access: true }), 'first-party');
    assert.equal(clientKindOf({ portcullis_kind: 'machine' }), 'machine');
    assert.equal(clientKindOf({ portcullis_kind: 'agent', portcullis_agent: 'cimd' }), 'metadata-document');
    assert.equal(clientKindOf({ portcullis_kind: 'oidc', portcullis_agent: 'dcr' }), 'registered');
  });

  it('answers unknown for no client and for metadata of no kind, which may hold nothing', () => {
    assert.equal(clientKindOf(undefined), 'unknown');
    assert.equal(clientKindOf({}), 'unknown');
    assert.equal(clientKindOf({ portcullis_kind: 'something-else' }), 'unknown');
    assert.equal(clientKindOf({ portcullis_kind: 'machine', portcullis_agent: 'other' }), 'unknown');
    assert.equal(mayHoldApiAudience('unknown'), false);
  });

  it('never makes a client that registered itself first-party or a machine user, whatever else it claims', () => {
    assert.equal(clientKindOf({ portcullis_kind: 'machine', portcullis_agent: 'dcr' }), 'registered');
    assert.equal(clientKindOf({ portcullis_api_access: true, portcullis_agent: 'cimd' }), 'metadata-document');
    assert.equal(mayHoldApiAudience(clientKindOf({ portcullis_api_access: true, portcullis_agent: 'cimd' })), false);
  });
});

describe('mayServe: the organization boundary fails closed', () => {
  it('serves no one without a client', () => {
    assert.equal(mayServe(undefined, user), false);
  });

  it('serves every organization for a first-party application and a machine user', () => {
    assert.equal(mayServe({ portcullis_kind: 'oidc', portcullis_api_access: true, portcullis_org_id: 'org-b' }, user), true);
    assert.equal(mayServe({ portcullis_kind: 'machine', portcullis_org_id: 'org-b' }, user), true);
  });

  it('serves only its own organization for an application or an agent, and no one without an organization', () => {
    assert.equal(mayServe({ portcullis_kind: 'oidc', portcullis_org_id: 'org-a' }, user), true);
    assert.equal(mayServe({ portcullis_kind: 'oidc', portcullis_org_id: 'org-b' }, user), false);
    assert.equal(mayServe({ portcullis_kind: 'agent', portcullis_agent: 'cimd', portcullis_api_access: true, portcullis_org_id: 'org-b' }, user), false);
    assert.equal(mayServe({ portcullis_kind: 'agent', portcullis_agent: 'cimd' }, user), false);
    assert.equal(mayServe({ portcullis_kind: 'oidc', portcullis_org_id: '' }, { orgId: '' }), false);
  });
});
