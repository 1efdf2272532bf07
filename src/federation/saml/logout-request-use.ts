import { ROUND_TRIP_MS } from '../round-trips.js';
import { CLOCK_SKEW_MS } from './upstream-saml.js';

/** What the replay cache keeps of a LogoutRequest: its ID, until it could no longer be accepted anyway. */
export interface LogoutRequestUse {
  id: string;
  keepUntil: number;
}

/**
 * The window an upstream IdP's LogoutRequest is taken in (docs/federation.md, "Single logout"). SAML Core §3.7.1 makes
 * `NotOnOrAfter` optional, and a signed request without it would end the sessions of its NameID whenever it is sent
 * again. So, as at the ACS: issued at most `ROUND_TRIP_MS` ago, with `CLOCK_SKEW_MS` of skew either way; its
 * `NotOnOrAfter`, when given, not passed; and its `ID` (required, SAML Core §3.2.1) used once, remembered as long
 * as the window lasts. Throws the reason otherwise.
 */
export function logoutRequestUse(root: Element, now: number): LogoutRequestUse {
  const id = root.getAttribute('ID') ?? '';
  if (!id) throw new Error('the LogoutRequest has no ID');
  const issued = Date.parse(root.getAttribute('IssueInstant') ?? '');
  if (Number.isNaN(issued)) throw new Error('the LogoutRequest has no IssueInstant');
  if (issued - CLOCK_SKEW_MS > now) throw new Error('the LogoutRequest is issued in the future');
  const keepUntil = issued + ROUND_TRIP_MS + CLOCK_SKEW_MS;
  if (keepUntil <= now) throw new Error('the LogoutRequest is too old');
  // xmldom answers '' for an absent attribute: only a NotOnOrAfter that is there bounds the request.
  if (root.hasAttribute('NotOnOrAfter') && !(now - CLOCK_SKEW_MS < Date.parse(root.getAttribute('NotOnOrAfter') ?? ''))) {
    throw new Error('the LogoutRequest has expired (NotOnOrAfter)');
  }
  return { id, keepUntil };
}
