import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, describe, it } from 'node:test';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { conformancePath, skipWithoutConformance } from '../support/conformance.js';
import { useService } from '../support/fixtures.js';

/** The OIDF conformance suite's metadata schema (shared conformance material beside the repository, MIT). */
const SCHEMA = () => conformancePath('oidf', 'oauth_authorization_server_metadata.schema.json');

/** Ported from oidcc-config-certification-test-plan and oidcc-rp-initiated-logout-discovery-endpoint-verification. */
describe('OIDF config plan: discovery document and JWKS', () => {
  const svc = useService();
  let doc: Record<string, any>;
  let res: Response;

  before(async () => {
    res = await fetch(new URL('/.well-known/openid-configuration', svc.config.publicUrl));
    doc = (await res.json()) as Record<string, any>;
  });

  it('answers 200 JSON with the issuer it was fetched from (OIDC Discovery §4.3)', () => {
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(doc.issuer, svc.config.publicUrl);
  });

  it('names the endpoints of docs/product-rules.md', () => {
    const base = svc.config.publicUrl;
    assert.equal(doc.authorization_endpoint, `${base}/oauth/v2/authorize`);
    assert.equal(doc.token_endpoint, `${base}/oauth/v2/token`);
    assert.equal(doc.introspection_endpoint, `${base}/oauth/v2/introspect`);
    assert.equal(doc.revocation_endpoint, `${base}/oauth/v2/revoke`);
    assert.equal(doc.userinfo_endpoint, `${base}/oidc/v1/userinfo`);
    assert.equal(doc.end_session_endpoint, `${base}/oidc/v1/end_session`);
    assert.equal(doc.jwks_uri, `${base}/oauth/v2/keys`);
  });

  it('has the mandatory and checked members with the right types', () => {
    assert.ok(doc.scopes_supported.includes('openid'));
    for (const s of doc.scopes_supported) assert.match(s, /^[\x21\x23-\x5B\x5D-\x7E]+$/);
    assert.ok(['code', 'id_token', 'id_token token'].every((t) => doc.response_types_supported.includes(t)));
    assert.ok(doc.subject_types_supported.includes('public'));
    assert.ok(doc.id_token_signing_alg_values_supported.includes('RS256'));
    assert.ok(!doc.id_token_signing_alg_values_supported.includes('none'), 'unsigned ID tokens are refused (oidcc-idtoken-unsigned)');
    assert.ok(Array.isArray(doc.grant_types_supported) && doc.grant_types_supported.length > 0);
    for (const g of [
      'authorization_code',
      'implicit',
      'refresh_token',
      'client_credentials',
      'urn:ietf:params:oauth:grant-type:jwt-bearer',
      'urn:ietf:params:oauth:grant-type:token-exchange',
    ]) {
      assert.ok(doc.grant_types_supported.includes(g), g);
    }
    for (const b of ['claims_parameter_supported', 'request_parameter_supported', 'request_uri_parameter_supported']) assert.equal(typeof doc[b], 'boolean', b);
    assert.ok(Array.isArray(doc.claims_supported));
    assert.deepEqual(doc.code_challenge_methods_supported, ['S256']);
    assert.deepEqual([...doc.token_endpoint_auth_methods_supported].sort(), ['client_secret_basic', 'client_secret_post', 'none', 'private_key_jwt']);
    assert.ok(doc.response_modes_supported.includes('form_post'));
  });

  it('validates against the OIDF metadata JSON schema (no unexpected members)', { skip: skipWithoutConformance('oidf') }, () => {
    const ajv = new Ajv2020.default({ strict: false, allErrors: true });
    addFormats.default(ajv);
    const validate = ajv.compile(JSON.parse(readFileSync(SCHEMA(), 'utf8')));
    assert.ok(validate(doc), JSON.stringify(validate.errors, null, 2));
  });

  it('publishes a JWKS whose keys all have distinct kids (CheckForKeyIdInServerJWKs)', async () => {
    const jwks = (await (await fetch(doc.jwks_uri)).json()) as { keys: { kid?: string; d?: string }[] };
    assert.ok(jwks.keys.length >= 1);
    assert.ok(
      jwks.keys.every((k) => typeof k.kid === 'string' && k.d === undefined),
      'kid present, no private members',
    );
    assert.equal(new Set(jwks.keys.map((k) => k.kid)).size, jwks.keys.length);
  });

  // RFC 8414 metadata (test/oidc/authorization-server-metadata.test.ts) names the same issuer as discovery.
  it('has OAuth authorization server metadata for the same issuer', async () => {
    const res = await fetch(new URL('/.well-known/oauth-authorization-server', svc.config.publicUrl));
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as { issuer: string }).issuer, svc.config.publicUrl);
  });
});
