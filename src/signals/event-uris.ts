/**
 * The event types of SETs (RFC 8417 §2.2) this instance transmits and receives: CAEP 1.0 §3, RISC 1.0 §2 and the
 * framework's own (SSF 1.0 §8.1.4.1, verification).
 */
export const CAEP_SESSION_REVOKED = 'https://schemas.openid.net/secevent/caep/event-type/session-revoked';
export const CAEP_CREDENTIAL_CHANGE = 'https://schemas.openid.net/secevent/caep/event-type/credential-change';
export const CAEP_ASSURANCE_LEVEL_CHANGE = 'https://schemas.openid.net/secevent/caep/event-type/assurance-level-change';
export const RISC_ACCOUNT_DISABLED = 'https://schemas.openid.net/secevent/risc/event-type/account-disabled';
export const RISC_ACCOUNT_ENABLED = 'https://schemas.openid.net/secevent/risc/event-type/account-enabled';
export const RISC_ACCOUNT_PURGED = 'https://schemas.openid.net/secevent/risc/event-type/account-purged';
export const RISC_IDENTIFIER_CHANGED = 'https://schemas.openid.net/secevent/risc/event-type/identifier-changed';
export const SSF_VERIFICATION = 'https://schemas.openid.net/secevent/ssf/event-type/verification';

/** What a stream may request (SSF 1.0 §8.1.1: `events_supported`). */
export const EVENTS_SUPPORTED = [
  CAEP_SESSION_REVOKED,
  CAEP_CREDENTIAL_CHANGE,
  CAEP_ASSURANCE_LEVEL_CHANGE,
  RISC_ACCOUNT_DISABLED,
  RISC_ACCOUNT_ENABLED,
  RISC_ACCOUNT_PURGED,
  RISC_IDENTIFIER_CHANGED,
];

/** RFC 8417 §2.3: the `typ` of a SET. */
export const SET_TYP = 'secevent+jwt';
