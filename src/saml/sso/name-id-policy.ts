import type { SamlNameIdFormat } from '../../users/entities/saml-application.entity.js';
import { NAME_ID_FORMATS } from '../idp-metadata.js';

/**
 * The NameID format an AuthnRequest's NameIDPolicy gets at an application set to `configured`, or undefined when the
 * application does not give it: SAML Core §3.4.1.1 then wants InvalidNameIDPolicy (docs/saml.md, "NameID").
 *
 * - No Format, or `unspecified`, leaves the choice to the IdP: the configured format.
 * - `transient` at every application: a fresh opaque id per assertion discloses less than any configured format, and
 *   SPs ask for it by default (mod_auth_mellon's NameIDPolicy is transient when its metadata names no NameIDFormat).
 * - `persistent` (the pairwise id, SAML Core §8.3.7) unless the application is set to `transient`, whose operator chose
 *   that the SP cannot recognise a user from one visit to the next.
 * - `emailAddress` only where configured: the address is personal data the operator must have chosen to release.
 * - Any other format (Kerberos, X.509 subject, …) is not given.
 */
export function nameIdFormatFor(configured: SamlNameIdFormat, requested: string | null): SamlNameIdFormat | undefined {
  if (requested === null || requested === NAME_ID_FORMATS.unspecified) return configured;
  if (requested === NAME_ID_FORMATS.transient) return 'transient';
  if (requested === NAME_ID_FORMATS.persistent) return configured === 'transient' ? undefined : 'persistent';
  if (requested === NAME_ID_FORMATS.emailAddress && configured === 'emailAddress') return 'emailAddress';
  return undefined;
}
