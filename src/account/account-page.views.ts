import { ACCOUNT_UI_PREFIX, APPS_UI_PATH } from '../login/ui-paths.js';
import type { AccountMessages } from './account-page.messages.js';
import { csrfField, esc, page } from '../login/login.views.js';
import type { ConnectedAgent } from './account-protocol.js';
import type { Messages } from '../login/messages.js';
import { LANGUAGE_NAMES, LOCALES } from '../texts/locales.js';
import type { Locale } from '../texts/locales.js';

export type AccountSection = 'profile' | 'email' | 'password' | 'factors' | 'sessions' | 'identities' | 'agents';

/** Everything the account page shows (docs/account.md, "Sections"), read for the session's own user. */
export interface AccountView {
  locale: Locale;
  t: AccountMessages;
  /** The login UI's texts (field labels the pages share). */
  lt: Messages;
  csrf: string;
  user: {
    loginName: string;
    firstName: string;
    lastName: string;
    displayName: string;
    preferredLanguage: string;
    email: string | null;
    emailVerified: boolean;
    hasPassword: boolean;
    /** Signs in with passkeys only (docs/passwordless.md): no password section, not even to set a first one. */
    passkeysOnly: boolean;
  };
  factors: { id: string; type: string; name?: string; createdAt: string }[];
  /** The passkey registration form (passkeyForm), where the organization allows passkeys. */
  passkey: string;
  sessions: { sessionId: string; applications: string[]; signedInAt: Date; lastUsedAt: Date; current: boolean }[];
  identities: { idpId: string; idpName: string; subject: string; linkedAt: string }[];
  /** docs/agents.md, "Consent and connected agents". */
  agents: ConnectedAgent[];
  /** The organization's identity providers the person has no identity of yet. */
  linkable: { id: string; name: string }[];
  notice?: string;
  problem?: { section: AccountSection; message: string; reauth?: boolean };
  signOutHref: string;
}

const action = (path: string) => `${ACCOUNT_UI_PREFIX}/${path}`;

/** The six sections, each with `[data-account-section]`, plain forms posting to `/ui/account/…` with the session's CSRF value. */
export function accountPage(v: AccountView): string {
  const { t } = v;
  const notice = v.notice ? `<p role="status" data-account-notice>${esc(v.notice)}</p>` : '';
  const body = `<p>${esc(t.signedInAs(v.user.loginName))} · <a href="${esc(APPS_UI_PATH)}" data-my-apps>${esc(t.myApps)}</a> · <a href="${esc(v.signOutHref)}">${esc(t.signOut)}</a></p>${notice}
${profileSection(v)}${emailSection(v)}${passwordSection(v)}${factorsSection(v)}${sessionsSection(v)}${agentsSection(v)}${identitiesSection(v)}`;
  return page(v.locale, t.title, body, { wide: true });
}

function section(v: AccountView, name: AccountSection, title: string, content: string): string {
  const problem = v.problem?.section === name ? v.problem : undefined;
  const alert = problem
    ? `<p class="error" role="alert">${esc(problem.message)}${problem.reauth ? ` <a href="${esc(action('sign-in?again=1'))}">${esc(v.t.signInAgainLink)}</a>` : ''}</p>`
    : '';
  return `<section data-account-section="${name}" aria-labelledby="section-${name}"><h2 id="section-${name}">${esc(title)}</h2>${alert}${content}</section>`;
}

function form(v: AccountView, path: string, content: string, attributes = ''): string {
  return `<form method="post" action="${esc(action(path))}"${attributes}>${csrfField(v.csrf)}${content}</form>`;
}

function field(name: string, label: string, value: string, extra = ''): string {
  return `<label for="${name}">${esc(label)}</label><input id="${name}" name="${name}" value="${esc(value)}"${extra}>`;
}

function profileSection(v: AccountView): string {
  const { t, lt, user } = v;
  const languages = [['', t.languageUnset], ...LOCALES.map((code) => [code, LANGUAGE_NAMES[code]])];
  if (user.preferredLanguage && !languages.some(([code]) => code === user.preferredLanguage)) languages.push([user.preferredLanguage, user.preferredLanguage]);
  const options = languages
    .map(
      ([code, name]) =>
        `<option value="${esc(code)}"${code ? ` lang="${esc(code)}"` : ''}${code === user.preferredLanguage ? ' selected' : ''}>${esc(name)}</option>`,
    )
    .join('');
  return section(
    v,
    'profile',
    t.profile,
    form(
      v,
      'profile',
      `${field('firstName', lt.firstName, user.firstName, ' autocomplete="given-name" required')}
${field('lastName', lt.lastName, user.lastName, ' autocomplete="family-name" required')}
${field('displayName', t.displayName, user.displayName, ' autocomplete="nickname"')}
<label for="preferredLanguage">${esc(t.preferredLanguage)}</label><select id="preferredLanguage" name="preferredLanguage">${options}</select>
<button type="submit">${esc(t.save)}</button>`,
    ),
  );
}

function emailSection(v: AccountView): string {
  const { t, user } = v;
  const current = user.email
    ? `<p>${esc(t.currentEmail)}: <strong data-email>${esc(user.email)}</strong> (<span data-email-verified="${user.emailVerified}">${esc(user.emailVerified ? t.verified : t.unverified)}</span>)</p>`
    : `<p>${esc(t.noEmail)}</p>`;
  const resend = user.email && !user.emailVerified ? form(v, 'email/verify', `<button type="submit">${esc(t.resendVerification)}</button>`) : '';
  return section(
    v,
    'email',
    t.email,
    `${current}${resend}${form(v, 'email', `${field('email', t.newEmail, '', ' type="email" autocomplete="email" required')}<button type="submit">${esc(t.changeEmail)}</button>`)}`,
  );
}

function passwordSection(v: AccountView): string {
  const { t, lt, user } = v;
  if (user.passkeysOnly) return '';
  const secret = (name: string, label: string, autocomplete: string) =>
    `<label for="${name}">${esc(label)}</label><input id="${name}" name="${name}" type="password" autocomplete="${autocomplete}" required>`;
  const current = user.hasPassword ? secret('currentPassword', t.currentPassword, 'current-password') : `<p>${esc(t.noPassword)}</p>`;
  return section(
    v,
    'password',
    t.password,
    form(
      v,
      'password',
      `<input type="hidden" name="username" autocomplete="username" value="${esc(user.loginName)}">
${current}${secret('password', lt.newPassword, 'new-password')}${secret('passwordConfirm', lt.passwordConfirm, 'new-password')}
<button type="submit">${esc(t.changePassword)}</button>`,
    ),
  );
}

function factorsSection(v: AccountView): string {
  const { t } = v;
  const rows = v.factors.map((f) => {
    const name = `${t.factorTypes[f.type] ?? f.type}${f.name ? ` (${f.name})` : ''}`;
    const remove = form(
      v,
      'factors/remove',
      `<input type="hidden" name="factorId" value="${esc(f.id)}"><button type="submit" aria-label="${esc(`${t.remove}: ${name}`)}">${esc(t.remove)}</button>`,
    );
    return `<tr data-factor="${esc(f.type)}"><td>${esc(name)}</td><td data-label="${esc(t.added)}">${dateCell(v.locale, new Date(f.createdAt))}</td><td>${remove}</td></tr>`;
  });
  const list =
    rows.length > 0
      ? `<table aria-label="${esc(t.factors)}"><thead><tr><th></th><th>${esc(t.added)}</th><th></th></tr></thead><tbody>${rows.join('')}</tbody></table>`
      : `<p>${esc(t.noFactors)}</p>`;
  const add = `${form(v, 'factors/totp', `<button type="submit" data-totp-enrol>${esc(t.addTotp)}</button>`)}${v.passkey}${form(v, 'factors/recovery-codes', `<button type="submit">${esc(t.newRecoveryCodes)}</button>`)}`;
  return section(v, 'factors', t.factors, `${list}${add}`);
}

function sessionsSection(v: AccountView): string {
  const { t } = v;
  const rows = v.sessions.map((s) => {
    const end = s.current
      ? `<strong>${esc(t.thisSession)}</strong>`
      : form(v, 'sessions/end', `<input type="hidden" name="sessionId" value="${esc(s.sessionId)}"><button type="submit">${esc(t.endSession)}</button>`);
    return `<tr data-session${s.current ? ' data-current-session' : ''}><td data-label="${esc(t.applications)}">${esc(s.applications.join(', '))}</td><td data-label="${esc(t.signedIn)}">${dateCell(v.locale, s.signedInAt)}</td><td data-label="${esc(t.lastUsed)}">${dateCell(v.locale, s.lastUsedAt)}</td><td>${end}</td></tr>`;
  });
  const others = v.sessions.some((s) => !s.current) ? form(v, 'sessions/end-others', `<button type="submit">${esc(t.endOthers)}</button>`) : '';
  return section(
    v,
    'sessions',
    t.sessions,
    `<table aria-label="${esc(t.sessions)}"><thead><tr><th>${esc(t.applications)}</th><th>${esc(t.signedIn)}</th><th>${esc(t.lastUsed)}</th><th></th></tr></thead><tbody>${rows.join('')}</tbody></table>${others}`,
  );
}

function agentsSection(v: AccountView): string {
  const { t } = v;
  const items = v.agents.map((a) => {
    const may = a.grants.map((g) => `<li>${g.resource ? `${esc(g.resource)}: ` : ''}${esc(g.scopes.join(' '))}</li>`).join('');
    const revoke = form(
      v,
      'agents/revoke',
      `<input type="hidden" name="clientId" value="${esc(a.clientId)}"><button type="submit" data-agent-revoke>${esc(t.revokeAgent)}</button>`,
    );
    return `<li data-agent="${esc(a.clientId)}"><strong>${esc(a.clientName)}</strong> <small>${esc(a.clientId)}</small><br>${esc(t.agentMay)}:<ul>${may}</ul>${revoke}</li>`;
  });
  return section(v, 'agents', t.agents, items.length ? `<ul>${items.join('')}</ul>` : `<p>${esc(t.noAgents)}</p>`);
}

function identitiesSection(v: AccountView): string {
  const { t } = v;
  const link = v.linkable
    .map((idp) =>
      form(
        v,
        'identities/link',
        `<input type="hidden" name="idpId" value="${esc(idp.id)}"><button type="submit" data-link-idp="${esc(idp.id)}">${esc(t.linkWith(idp.name))}</button>`,
      ),
    )
    .join('');
  if (v.identities.length === 0) return section(v, 'identities', t.identities, `<p>${esc(t.noIdentities)}</p>${link}`);
  const rows = v.identities.map((i) => {
    const unlink = form(
      v,
      'identities/unlink',
      `<input type="hidden" name="idpId" value="${esc(i.idpId)}"><input type="hidden" name="subject" value="${esc(i.subject)}"><button type="submit" aria-label="${esc(`${t.unlink}: ${i.idpName}`)}">${esc(t.unlink)}</button>`,
    );
    return `<tr data-identity><td data-label="${esc(t.provider)}">${esc(i.idpName)}</td><td data-label="${esc(t.subject)}">${esc(i.subject)}</td><td data-label="${esc(t.added)}">${dateCell(v.locale, new Date(i.linkedAt))}</td><td>${unlink}</td></tr>`;
  });
  return section(
    v,
    'identities',
    t.identities,
    `<table aria-label="${esc(t.identities)}"><thead><tr><th>${esc(t.provider)}</th><th>${esc(t.subject)}</th><th>${esc(t.added)}</th><th></th></tr></thead><tbody>${rows.join('')}</tbody></table>${link}`,
  );
}

/** A time in the page's language, in UTC (the server knows no time zone of the reader), with its ISO value. */
function dateCell(locale: Locale, date: Date): string {
  const shown = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).format(date);
  return `<time datetime="${date.toISOString()}">${esc(shown)} UTC</time>`;
}

/** A page outside the sections (new recovery codes, TOTP set-up) links back to the account page. */
export function backToAccount(t: AccountMessages): string {
  return `<p><a href="${esc(ACCOUNT_UI_PREFIX)}">${esc(t.backToAccount)}</a></p>`;
}
