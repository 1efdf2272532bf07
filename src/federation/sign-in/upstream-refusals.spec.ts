import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as client from 'openid-client';
import { XmlRefused } from '../../common/xml/saml-xml.js';
import type { IdpRow } from '../federation.queries.js';
import { SubjectClaimMissing, UpstreamAnswerRefused, UpstreamUnreachable } from '../upstream-oidc.js';
import { REFUSALS, classifyUpstreamFailure, upstreamErrorCode } from './upstream-refusals.js';

const idp = (type: string) => ({ id: 'idp1', orgId: 'o1', type, name: 'Upstream' }) as IdpRow;
const coded = (code: string) => Object.assign(new Error(code), { code });

describe('federation: why an upstream round trip failed', () => {
  it('calls an OIDC answer that failed a check a refused response', () => {
    const failures = [
      new UpstreamAnswerRefused('nonce mismatch'),
      new XmlRefused('bad XML'),
      coded('OAUTH_INVALID_RESPONSE'),
      coded('OAUTH_JWT_CLAIM_COMPARISON_FAILED'),
      coded('OAUTH_JWT_TIMESTAMP_CHECK_FAILED'),
      coded('OAUTH_JWS_SIGNATURE_VERIFICATION_FAILED'),
      coded('OAUTH_PARSE_ERROR'),
    ];
    for (const error of failures) assert.equal(classifyUpstreamFailure(idp('oidc'), error), 'invalid_response', error.message);
  });

  it('calls an OIDC upstream that could not be reached an upstream error', () => {
    const failures = [new TypeError('fetch failed'), coded('ECONNREFUSED'), coded('OAUTH_RESPONSE_IS_NOT_CONFORM'), 'a thrown string'];
    for (const error of failures) assert.equal(classifyUpstreamFailure(idp('oidc'), error), 'upstream_error', String(error));
  });

  it('refuses a SAML response that failed anything, never calling it unreachable', () => {
    assert.equal(classifyUpstreamFailure(idp('saml'), new Error('Invalid signature')), 'invalid_response');
    assert.equal(classifyUpstreamFailure(idp('saml'), new TypeError('fetch failed')), 'invalid_response');
  });

  it('names a verified answer without the subject claim, and a SAML metadata URL still unreachable, for what they are', () => {
    assert.equal(classifyUpstreamFailure(idp('oidc'), new SubjectClaimMissing('oid')), 'subject_missing');
    assert.equal(REFUSALS.subject_missing.status, 400);
    assert.equal(classifyUpstreamFailure(idp('saml'), new UpstreamUnreachable('metadata.example does not resolve')), 'upstream_error');
    assert.equal(classifyUpstreamFailure(idp('oidc'), new UpstreamUnreachable('login.example does not resolve')), 'upstream_error');
  });

  it('treats openid-client response errors as refused answers', () => {
    const error = Object.create(client.ResponseBodyError.prototype) as Error;
    assert.equal(classifyUpstreamFailure(idp('oidc'), error), 'invalid_response');
  });
});

describe('federation: what a refusal page repeats and answers', () => {
  it('repeats only an RFC 6749 error code, never other text the upstream sent', () => {
    assert.equal(upstreamErrorCode('access_denied'), 'access_denied');
    for (const sent of [undefined, '', 'Access Denied', '<script>', 'a'.repeat(65), 'access_denied\n']) {
      assert.equal(upstreamErrorCode(sent), 'upstream_error', JSON.stringify(sent));
    }
  });

  it('answers 502 for an unreachable upstream, 400 for a refused response, 403 for no account', () => {
    assert.equal(REFUSALS.upstream_error.status, 502);
    assert.equal(REFUSALS.invalid_response.status, 400);
    const noAccount = [
      'no_account',
      'ambiguous',
      'holds_role',
      'already_linked',
      'unverified_email',
      'user_name_missing',
      'user_name_taken',
      'user_name_invalid',
      'inactive_user',
    ] as const;
    for (const reason of noAccount) assert.equal(REFUSALS[reason].status, 403, reason);
  });
});
