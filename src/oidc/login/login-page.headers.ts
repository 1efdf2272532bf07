/**
 * Headers of every HTML page of the login flow: never cached (they carry CSRF values and names), never
 * framed (clickjacking), no content sniffing, no referrer (URLs carry interaction ids), and a CSP that
 * allows nothing but the inline style of the page frame. No form-action: browsers apply it to the
 * redirects after a post too, and a finished login redirects to the client's redirect_uri. Scripts only
 * from this origin: the passkey ceremony (passkey-assets.ts); its options are JSON, never executed.
 */
export function contentSecurityPolicy(scripts: string): string {
  return `default-src 'none'; script-src ${scripts}; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'`;
}

export const LOGIN_PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Cache-Control': 'no-store',
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Content-Security-Policy': contentSecurityPolicy("'self'"),
};
