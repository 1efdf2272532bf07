/**
 * Where a webhook may be sent: the URL's shape here; its addresses are checked by the one outbound check
 * (src/common/net/outbound-address.ts) at creation and again at each delivery, where the connection goes
 * to the address that was checked, unless WEBHOOK_ALLOW_PRIVATE_NETWORKS=true.
 */

/** Why a target URL cannot be used (shape only; outbound-address.ts checks where it points). */
export function targetUrlProblem(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'url must be an absolute http or https URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'url must be an absolute http or https URL';
  if (url.username || url.password) return 'url must not carry credentials';
  if (url.hash) return 'url must not have a fragment';
  if (!url.hostname) return 'url must name a host';
  return undefined;
}
