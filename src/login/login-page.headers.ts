/**
 * Headers of every HTML page of the login flow: never cached (they carry CSRF values and names), never
 * framed (clickjacking), no content sniffing, no referrer (URLs carry interaction ids), and a CSP that
 * allows no inline style: the design system's stylesheet comes from this origin (docs/design.md), and so do a brand's
 * stylesheet and re-encoded logo (docs/branding.md), on every page alike, so a brand never changes the policy. Forms post to this origin only, plus the origins
 * a finished step redirects to (`formTargets`: the client's redirect URI): browsers apply `form-action`
 * to the redirects after a post too (CSP Level 3, `form-action`; SECURITY.md, "What we defend"). Scripts only from this origin: the passkey
 * ceremony (passkey-assets.ts); its options are JSON, never executed.
 */
export function contentSecurityPolicy(scripts: string, formTargets: Array<string | undefined> = []): string {
  const targets = [...new Set(formTargets.map(sourceOf).filter((t): t is string => t !== undefined))];
  return `default-src 'none'; script-src ${scripts}; style-src 'self'; img-src 'self'; base-uri 'none'; form-action ${["'self'", ...targets].join(' ')}; frame-ancestors 'none'`;
}

/**
 * The CSP source expression of a redirect URI the provider accepted: its origin for http(s), its scheme
 * for a native app's private-use scheme (RFC 8252 §7.1), nothing for what does not parse. URL normalises
 * both, so nothing of the request reaches the header unescaped.
 */
function sourceOf(uri: string | undefined): string | undefined {
  if (!uri) return undefined;
  try {
    const url = new URL(uri);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url.origin;
    return /^[a-z][a-z0-9+.-]*:$/.test(url.protocol) ? url.protocol : undefined;
  } catch {
    return undefined;
  }
}

export const LOGIN_PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Cache-Control': 'no-store',
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Content-Security-Policy': contentSecurityPolicy("'self'"),
};
