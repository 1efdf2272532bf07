import type { Decision } from '../federated-accounts.service.js';
import type { UpstreamIdentity } from '../upstream-oidc.js';
import { esc, page } from '../../login/login.views.js';
import type { Messages } from '../../login/messages.js';
import type { Locale } from '../../texts/locales.js';

/**
 * The result of a test sign-in (docs/federation.md, "Testing an IdP"): who the upstream said signed in, what it
 * sent, and what a real sign-in would do (`data-outcome`: linked, link, create or refused).
 */
export function idpTestPage(locale: Locale, t: Messages, idpName: string, identity: UpstreamIdentity, decision: Decision, userName?: string): string {
  const outcome =
    decision.kind === 'linked'
      ? t.idpTestLinked(userName ?? decision.userId)
      : decision.kind === 'link'
        ? t.idpTestLink(userName ?? decision.userId, decision.by)
        : decision.kind === 'create'
          ? t.idpTestCreate(decision.user.userName)
          : t.idpTestRefused(decision.reason);
  const claims = Object.entries(identity.claims)
    .filter(([name]) => !['aud', 'iss', 'exp', 'iat', 'nonce', 'at_hash', 'c_hash', 'sid', 'auth_time'].includes(name))
    .map(([name, value]) => `<tr><th scope="row">${esc(name)}</th><td>${esc(typeof value === 'string' ? value : JSON.stringify(value))}</td></tr>`)
    .join('');
  return page(
    locale,
    `${t.idpTestTitle}: ${idpName}`,
    `<p data-outcome="${esc(decision.kind)}"><strong>${esc(outcome)}</strong></p><p>${esc(t.idpTestHint)}</p>
<h2>${esc(t.idpTestSubject)}</h2><p data-subject>${esc(identity.subject)}</p>
<h2>${esc(t.idpTestMethods)}</h2><p>${esc(identity.methods.join(' ') || '—')}</p>
<h2>${esc(t.idpTestClaims)}</h2><table>${claims}</table>`,
  );
}
