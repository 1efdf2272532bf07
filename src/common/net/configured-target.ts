import { DomainError } from '../errors/domain-error.js';
import { hostOf, nonPublicAddressesOf } from './outbound-address.js';
import { outboundFetch } from './outbound-fetch.js';

/** Where outbound calls to URLs an organization configured may go, and how long they may take. */
export interface OutboundRules {
  allowPrivateNetworks: boolean;
  timeoutMs: number;
}

/**
 * Refuses, at configuration time, a URL an organization typed that outbound calls may not reach (docs/webhooks.md, "Targets on private networks"): plain
 * http or a host resolving to a loopback, private or link-local address, unless `OUTBOUND_ALLOW_PRIVATE_NETWORKS`
 * (development). Calls check the address again when they connect (outbound-fetch.ts). A 400 naming `field`.
 */
export async function assertReachableTarget(target: string, field: string, rules: Pick<OutboundRules, 'allowPrivateNetworks'>): Promise<void> {
  if (rules.allowPrivateNetworks) return;
  const url = new URL(target);
  if (url.protocol !== 'https:')
    throw DomainError.invalidField(
      field,
      `${field} must be an absolute https URL (plain http only with OUTBOUND_ALLOW_PRIVATE_NETWORKS=true, for development)`,
    );
  await assertPublicHost(url, field, rules);
}

/**
 * As assertReachableTarget, for a URL the service calls only later (an upstream IdP's issuer or metadata URL,
 * docs/federation.md): a host that does not resolve (yet) is accepted and answered `unresolved` — it reaches
 * nothing, and every call checks the addresses again when it connects (outbound-fetch.ts); a host resolving to a
 * non-public address is refused as there. The name is looked up even where private networks are allowed, to tell
 * whether it resolves. A 400 naming `field`.
 */
export async function checkLaterTarget(target: string, field: string, rules: Pick<OutboundRules, 'allowPrivateNetworks'>): Promise<'resolved' | 'unresolved'> {
  const url = new URL(target);
  if (!rules.allowPrivateNetworks && url.protocol !== 'https:')
    throw DomainError.invalidField(
      field,
      `${field} must be an absolute https URL (plain http only with OUTBOUND_ALLOW_PRIVATE_NETWORKS=true, for development)`,
    );
  const host = hostOf(url);
  let refused: string[];
  try {
    refused = await nonPublicAddressesOf(host);
  } catch {
    return 'unresolved';
  }
  if (!rules.allowPrivateNetworks && refused.length > 0) throw nonPublicRefusal(field, host, refused);
  return 'resolved';
}

/**
 * The address half of the rule above, for a URL whose scheme the caller's own rule decides (a back-channel logout URI
 * may be plain http in an application's development mode): its host must resolve, to public addresses only, unless
 * `OUTBOUND_ALLOW_PRIVATE_NETWORKS`. A 400 naming `field`. With `unresolved: 'accept'` a name that does not resolve
 * (yet) passes: it reaches nothing, and every call checks the address again when it connects.
 */
export async function assertPublicHost(
  url: URL,
  field: string,
  rules: Pick<OutboundRules, 'allowPrivateNetworks'>,
  unresolved: 'refuse' | 'accept' = 'refuse',
): Promise<void> {
  if (rules.allowPrivateNetworks) return;
  const host = hostOf(url);
  let refused: string[];
  try {
    refused = await nonPublicAddressesOf(host);
  } catch {
    if (unresolved === 'accept') return;
    throw DomainError.invalidField(field, `${field}: the host ${host} does not resolve`);
  }
  if (refused.length > 0) throw nonPublicRefusal(field, host, refused);
}

function nonPublicRefusal(field: string, host: string, refused: string[]): DomainError {
  return DomainError.invalidField(
    field,
    `${field}: ${host} resolves to a non-public address (${refused.join(', ')}); such URLs need OUTBOUND_ALLOW_PRIVATE_NETWORKS=true`,
  );
}

/**
 * A SAML metadata document read from a URL an organization gave (an upstream IdP's, docs/federation.md, "SAML"; a service provider's,
 * docs/saml.md): the URL's shape, then its reachability as above, then one GET (200 only, at most 1 MiB, no redirects). A 400
 * naming `field` for each failure; the caller parses the document.
 */
export async function readMetadataDocument(url: string, field: string, rules: OutboundRules): Promise<string> {
  const problem = absoluteUrlProblem(url);
  if (problem) throw DomainError.invalidField(field, `${field} ${problem}`);
  await assertReachableTarget(url, field, rules);
  const fetch = outboundFetch({ allowPrivateNetworks: rules.allowPrivateNetworks, timeoutMs: rules.timeoutMs, maxBodyBytes: 1024 * 1024 });
  try {
    const res = await fetch(url, { method: 'GET', headers: { accept: 'application/samlmetadata+xml, application/xml, text/xml' } });
    if (res.status !== 200) throw new Error(`answered ${res.status}`);
    return await res.text();
  } catch (error) {
    throw DomainError.invalidField(field, `${field}: the metadata could not be read (${error instanceof Error ? error.message : String(error)})`);
  }
}

/** Why a URL cannot name a remote document: not absolute http(s), credentials in it, a query or fragment. */
export function absoluteUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute https URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an absolute https URL';
  if (url.username || url.password) return 'must not carry credentials';
  if (url.search || url.hash || value.includes('?') || value.includes('#')) return 'must have no query or fragment';
  return undefined;
}
