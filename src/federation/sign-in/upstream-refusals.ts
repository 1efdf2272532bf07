import { Logger } from '@nestjs/common';
import * as client from 'openid-client';
import { XmlRefused } from '../../common/xml/saml-xml.js';
import type { Messages } from '../../login/messages.js';
import type { FederationRefusal } from '../federated-accounts.service.js';
import type { IdpRow } from '../federation.queries.js';
import { SubjectClaimMissing, UpstreamAnswerRefused, UpstreamUnreachable } from '../upstream-oidc.js';

/**
 * The page and status of each refusal (docs/federation.md, "Refusals": "no account", "IdP error", "refused response").
 * The refusals of the identity share the page's `no_account` code, but each text says why: a person told only that
 * there is no account cannot tell their administrator what to fix. A matched account's details stay unnamed.
 */
export const REFUSALS: Record<FederationRefusal, { status: number; text: (t: Messages) => string }> = {
  no_account: { status: 403, text: (t) => t.idpNoAccount },
  ambiguous: { status: 403, text: (t) => t.idpNotLinkable },
  holds_role: { status: 403, text: (t) => t.idpNotLinkable },
  already_linked: { status: 403, text: (t) => t.idpNotLinkable },
  unverified_email: { status: 403, text: (t) => t.idpEmailUnverified },
  user_name_missing: { status: 403, text: (t) => t.idpUserNameMissing },
  user_name_taken: { status: 403, text: (t) => t.idpUserNameTaken },
  user_name_invalid: { status: 403, text: (t) => t.idpUserNameInvalid },
  inactive_user: { status: 403, text: (t) => t.idpInactive },
  upstream_error: { status: 502, text: (t) => t.idpUnavailable },
  invalid_response: { status: 400, text: (t) => t.idpRefused },
  subject_missing: { status: 400, text: (t) => t.idpNoSubject },
  idp_initiated: { status: 400, text: (t) => t.idpInitiatedRefused },
};

/** openid-client's codes for an answer that failed a check (as opposed to an upstream that could not be reached). */
const CHECK_FAILED =
  /^OAUTH_(INVALID_RESPONSE|JWT_CLAIM_COMPARISON|JSON_ATTRIBUTE_COMPARISON|JWT_TIMESTAMP_CHECK|PARSE_ERROR|UNSUPPORTED_OPERATION|JWS_SIGNATURE_VERIFICATION_FAILED)/;

/** RFC 6749 §4.1.2.1 error codes are ASCII words; anything else the upstream sent is never repeated. */
const ERROR_CODE = /^[a-z_]{1,64}$/;

const logger = new Logger('federation');

/** The upstream's error code as a page may repeat it, or `upstream_error`. */
export function upstreamErrorCode(sent: string | undefined): string {
  return sent !== undefined && ERROR_CODE.test(sent) ? sent : 'upstream_error';
}

/**
 * Why a round trip failed: the upstream's answer failed a check (`invalid_response`), or the upstream could not be
 * reached (`upstream_error`), or its verified answer lacks the IdP's subject claim (`subject_missing`). node-saml's refusals are plain errors of its checks (signature, audience,
 * InResponseTo, time): a SAML response that fails anything is refused, never "unreachable".
 */
export function classifyUpstreamFailure(idp: IdpRow, error: unknown): FederationRefusal {
  if (error instanceof SubjectClaimMissing) {
    logger.warn(`identity provider ${idp.id}: ${error.message}`);
    return 'subject_missing';
  }
  if (error instanceof UpstreamUnreachable) {
    logger.warn(`identity provider ${idp.id}: unreachable: ${error.message}`);
    return 'upstream_error';
  }
  const code = (error as { code?: unknown }).code;
  const checkFailed =
    idp.type === 'saml' ||
    error instanceof UpstreamAnswerRefused ||
    error instanceof XmlRefused ||
    error instanceof client.ResponseBodyError ||
    error instanceof client.AuthorizationResponseError ||
    (typeof code === 'string' && CHECK_FAILED.test(code));
  // The message names the failed check or the unreachable host, never a token.
  logger.warn(`identity provider ${idp.id}: ${checkFailed ? 'refused answer' : 'unreachable'}: ${error instanceof Error ? error.message : String(error)}`);
  return checkFailed ? 'invalid_response' : 'upstream_error';
}
