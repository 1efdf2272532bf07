import type { ConsentRequest } from './consent-protocol.js';
import { csrfField, esc, page } from './login.views.js';
import type { FormContext } from './login.views.js';

/**
 * The consent page of an agent client (docs/agents.md, "Consent and connected agents"): who asks, unmissable (the
 * hostname of its client_id, or that nobody verified it), then under it the name the client gives itself, quoted as
 * its own unchecked words (RFC 7591 §5: a human-readable name is the client's claim), where the answer goes, at which
 * resource, and what each scope allows. Allow and Deny are two forms, one submit button each.
 */
export function consentPage(ctx: FormContext, denyAction: string, request: ConsentRequest): string {
  const { t } = ctx;
  const who = request.clientHost
    ? `<strong data-consent-client-host>${esc(request.clientHost)}</strong>`
    : `<strong class="error" data-consent-unverified>${esc(t.consentUnverified)}</strong>`;
  const where = request.device
    ? `<strong data-consent-device>${esc(t.consentDevice)}</strong>`
    : `${esc(request.redirectHost)}${request.loopback ? ` (<strong data-consent-loopback>${esc(t.consentLoopback)}</strong>)` : ''}`;
  const scopes = request.scopes
    .map((s) => `<li data-consent-scope="${esc(s.name)}">${s.description ? `${esc(s.description)} <small>(${esc(s.name)})</small>` : esc(s.name)}</li>`)
    .join('');
  const name = `<q data-consent-client-name>${esc(request.clientName)}</q> <small>(${esc(t.consentClientClaim)})</small>`;
  const body = `<p>${esc(t.consentAsks)}</p>
<dl><dt>${esc(t.consentClientHost)}</dt><dd>${who}</dd><dt>${esc(t.consentClientName)}</dt><dd>${name}</dd><dt>${esc(t.consentRedirect)}</dt><dd>${where}</dd>${
    request.resourceName ? `<dt>${esc(t.consentResource)}</dt><dd data-consent-resource>${esc(request.resourceName)}</dd>` : ''
  }</dl>
<p>${esc(t.consentScopes)}</p><ul>${scopes}</ul>
<form method="post" action="${esc(ctx.action)}">${csrfField(ctx.csrf)}<button type="submit" data-consent-allow>${esc(t.consentAllow)}</button></form>
<form method="post" action="${esc(denyAction)}">${csrfField(ctx.csrf)}<button type="submit" data-consent-deny>${esc(t.consentDeny)}</button></form>`;
  return page(ctx.locale, t.consentTitle, body);
}
