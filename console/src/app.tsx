import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, enc, whenUnauthenticated } from './api';
import { completeSignIn, currentSession, forgetSession, signIn, signOut } from './auth';
import type { Session } from './auth';
import { ErrorMessage, Link, Loading, useLoad } from './components';
import { LANGUAGES, language, setLanguage, t } from './i18n';
import type { Language } from './i18n';
import { EventsPage } from './pages/events';
import { FeaturesPage, KeysPage, LoginPolicyPage } from './pages/instance';
import { SettingsPage } from './pages/settings';
import { GroupsPage } from './pages/groups';
import { MembersPage } from './pages/members';
import { OrgsPage } from './pages/orgs';
import type { Org } from './pages/orgs';
import { ProjectPage } from './pages/applications';
import { ApplicationPage } from './pages/application';
import { ProjectsPage } from './pages/projects';
import { UserDetailPage } from './pages/user-detail';
import { AgentsPage } from './pages/agents';
import { RegisteredClientsPage } from './pages/registered-clients';
import { UsersPage } from './pages/users';
import { WebhooksPage } from './pages/webhooks';
import { AuditStreamsPage } from './pages/audit-streams';
import { DirectoriesPage } from './pages/directories';
import { IdpsPage } from './pages/idps';
import { DomainsPage } from './pages/domains';
import { ProvisioningPage } from './pages/provisioning';
import { ProvisioningTargetPage } from './pages/provisioning-target';
import { BrandingPage } from './pages/branding';
import { MeContext, isInstanceOwner, rolesOn } from './roles';
import type { Me } from './roles';
import { match, navigate, usePath } from './router';

export function App() {
  const [lang, setLang] = useState<Language>(language());
  const [session, setSession] = useState<Session | null>(currentSession());
  const [expired, setExpired] = useState(false);
  const path = usePath();
  useEffect(() => {
    whenUnauthenticated(() => {
      forgetSession();
      setExpired(true);
      setSession(null);
    });
  }, []);
  const changeLanguage = (next: Language) => {
    setLanguage(next);
    setLang(next);
  };
  const switcher = <LanguageSwitch value={lang} onChange={changeLanguage} />;
  if (match('/console/callback', path)) return <Callback onSignedIn={() => setSession(currentSession())} switcher={switcher} />;
  if (!session) return <SignIn expired={expired} switcher={switcher} />;
  return <Console session={session} path={path} switcher={switcher} />;
}

function LanguageSwitch({ value, onChange }: { value: Language; onChange: (lang: Language) => void }) {
  return (
    <label class="language">
      <span>{t('language')}</span>
      <select value={value} onChange={(e) => onChange((e.currentTarget as HTMLSelectElement).value as Language)}>
        {LANGUAGES.map((l) => (
          <option key={l.code} value={l.code}>
            {l.name}
          </option>
        ))}
      </select>
    </label>
  );
}

function Frame({ switcher, user, children }: { switcher: ComponentChildren; user?: ComponentChildren; children: ComponentChildren }) {
  return (
    <>
      <header class="top">
        <p class="brand">{t('productName')}</p>
        <div class="top-right">
          {user}
          {switcher}
        </div>
      </header>
      {children}
    </>
  );
}

function SignIn({ expired, switcher }: { expired: boolean; switcher: ComponentChildren }) {
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    document.title = `${t('signIn')} · Portcullis`;
  });
  const start = () => signIn(location.pathname === '/console/callback' ? '/console/' : location.pathname + location.search, language()).catch(setError);
  return (
    <Frame switcher={switcher}>
      <main class="centered">
        <h1>{t('consoleTitle')}</h1>
        <p>{expired ? t('sessionExpired') : t('signInIntro')}</p>
        <button type="button" class="primary" onClick={start}>
          {t('signIn')}
        </button>
        <ErrorMessage error={error} />
      </main>
    </Frame>
  );
}

function Callback({ onSignedIn, switcher }: { onSignedIn: () => void; switcher: ComponentChildren }) {
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    completeSignIn(new URL(location.href)).then(
      (returnTo) => {
        onSignedIn();
        navigate(returnTo.startsWith('/console/') ? returnTo : '/console/', true);
      },
      (e: unknown) => setError(e),
    );
  }, []);
  return (
    <Frame switcher={switcher}>
      <main class="centered">
        <h1>{t('signIn')}</h1>
        {error ? (
          <>
            <ErrorMessage error={error} />
            <button type="button" class="primary" onClick={() => signIn('/console/', language())}>
              {t('signInAgain')}
            </button>
          </>
        ) : (
          <p>{t('signingIn')}</p>
        )}
      </main>
    </Frame>
  );
}

function Console({ session, path, switcher }: { session: Session; path: string; switcher: ComponentChildren }) {
  const me = useLoad(() => api<Me>('GET', '/auth/v1/users/me'), [session.accessToken]);
  const user = (
    <>
      <span class="who">{session.claims.preferred_username ?? session.claims.name ?? session.claims.sub}</span>
      <button type="button" onClick={() => void signOut()}>
        {t('signOut')}
      </button>
    </>
  );
  return (
    <Frame switcher={switcher} user={user}>
      <Loading loaded={me}>
        {(m) => (
          <MeContext.Provider value={m}>
            <Routes me={m} path={path} session={session} />
          </MeContext.Provider>
        )}
      </Loading>
    </Frame>
  );
}

/** The organization a path is about (`/console/orgs/{orgId}/…`), else the user's own. */
function orgOf(path: string, me: Me): string {
  return match('/console/orgs/:orgId', path.split('/').slice(0, 4).join('/'))?.orgId ?? me.orgId;
}

function Routes({ me, path, session }: { me: Me; path: string; session: Session }) {
  const owner = isInstanceOwner(me);
  const orgId = orgOf(path, me);
  useEffect(() => {
    if (path === '/console/' || path === '/console') navigate(owner ? '/console/orgs' : `/console/orgs/${enc(me.orgId)}/users`, true);
  }, [path]);
  const page = pageFor(path, owner);
  return (
    <div class="layout">
      <Navigation me={me} orgId={orgId} path={path} session={session} />
      <main id="main">{page ?? <p>{t('notFound')}</p>}</main>
    </div>
  );
}

function pageFor(path: string, owner: boolean): ComponentChildren | null {
  let p: Record<string, string> | null;
  if (match('/console', path) || match('/console/', path)) return <p>{t('loading')}</p>;
  if (owner && match('/console/orgs', path)) return <OrgsPage />;
  if (owner && match('/console/members', path)) return <MembersPage />;
  if (owner && match('/console/events', path)) return <EventsPage />;
  if (owner && match('/console/webhooks', path)) return <WebhooksPageInstance />;
  if (owner && match('/console/audit-streams', path)) return <AuditStreamsPageInstance />;
  if (owner && match('/console/keys', path)) return <KeysPage />;
  if (owner && match('/console/registered-clients', path)) return <RegisteredClientsPage />;
  if (owner && match('/console/features', path)) return <FeaturesPage />;
  if (owner && match('/console/settings', path)) return <SettingsPage />;
  if ((p = match('/console/orgs/:orgId/users', path))) return <UsersPage key={p.orgId} orgId={p.orgId} />;
  if ((p = match('/console/orgs/:orgId/users/:userId', path))) return <UserDetailPage key={p.userId} orgId={p.orgId} userId={p.userId} />;
  if ((p = match('/console/orgs/:orgId/groups', path))) return <GroupsPage key={p.orgId} orgId={p.orgId} />;
  if ((p = match('/console/orgs/:orgId/agents', path))) return <AgentsPage key={p.orgId} orgId={p.orgId} />;
  if ((p = match('/console/orgs/:orgId/registered-clients', path))) return <RegisteredClientsPage key={p.orgId} orgId={p.orgId} />;
  if ((p = match('/console/orgs/:orgId/projects', path))) return <ProjectsPage key={p.orgId} orgId={p.orgId} />;
  if ((p = match('/console/orgs/:orgId/projects/:projectId', path))) return <ProjectPage key={p.projectId} orgId={p.orgId} projectId={p.projectId} />;
  if ((p = match('/console/orgs/:orgId/projects/:projectId/apps/:appId', path)))
    return <ApplicationPage key={p.appId} orgId={p.orgId} projectId={p.projectId} appId={p.appId} />;
  if ((p = match('/console/orgs/:orgId/members', path))) return <MembersPage key={p.orgId} orgId={p.orgId} />;
  if ((p = match('/console/orgs/:orgId/login-policy', path))) return <LoginPolicyPage key={p.orgId} orgId={p.orgId} />;
  if ((p = match('/console/orgs/:orgId/webhooks', path))) return <WebhooksPageOrg key={p.orgId} orgId={p.orgId} />;
  if ((p = match('/console/orgs/:orgId/audit-streams', path))) return <AuditStreamsPageOrg key={p.orgId} orgId={p.orgId} />;
  if ((p = match('/console/orgs/:orgId/domains', path))) return <DomainsPage key={p.orgId} orgId={p.orgId} />;
  if ((p = match('/console/orgs/:orgId/idps', path))) return <IdpsPage key={p.orgId} orgId={p.orgId} />;
  if ((p = match('/console/orgs/:orgId/directories', path))) return <DirectoriesPage key={p.orgId} orgId={p.orgId} />;
  if ((p = match('/console/orgs/:orgId/branding', path))) return <BrandingPage key={p.orgId} orgId={p.orgId} />;
  if ((p = match('/console/orgs/:orgId/provisioning', path))) return <ProvisioningPage key={p.orgId} orgId={p.orgId} />;
  if ((p = match('/console/orgs/:orgId/provisioning/:targetId', path)))
    return <ProvisioningTargetPage key={p.targetId} orgId={p.orgId} targetId={p.targetId} />;
  return null;
}

const WebhooksPageInstance = () => <WebhooksPage />;
const WebhooksPageOrg = ({ orgId }: { orgId: string }) => <WebhooksPage orgId={orgId} />;
const AuditStreamsPageInstance = () => <AuditStreamsPage />;
const AuditStreamsPageOrg = ({ orgId }: { orgId: string }) => <AuditStreamsPage orgId={orgId} />;

/** Only what the user's roles allow (the API would refuse the rest anyway). */
function Navigation({ me, orgId, path, session }: { me: Me; orgId: string; path: string; session: Session }) {
  const owner = isInstanceOwner(me);
  const roles = rolesOn(me, orgId);
  const org = `/console/orgs/${enc(orgId)}`;
  // One place is current: the longest entry the path is in (a user's page is under Users, not also Organizations).
  const entries = [
    '/console/orgs',
    '/console/members',
    '/console/events',
    '/console/webhooks',
    '/console/audit-streams',
    '/console/keys',
    '/console/registered-clients',
    '/console/features',
    '/console/settings',
    ...[
      'users',
      'groups',
      'agents',
      'registered-clients',
      'projects',
      'members',
      'login-policy',
      'webhooks',
      'audit-streams',
      'domains',
      'idps',
      'directories',
      'provisioning',
      'branding',
    ].map((p) => `${org}/${p}`),
  ];
  const current = entries.filter((href) => path === href || path.startsWith(`${href}/`)).sort((a, b) => b.length - a.length)[0];
  const item = (href: string, label: string) => (
    <li key={href}>
      <Link href={href} current={href === current}>
        {label}
      </Link>
    </li>
  );
  return (
    <nav class="side" aria-label={t('mainNavigation')}>
      {owner && (
        <>
          <h2>{t('instance')}</h2>
          <ul>
            {item('/console/orgs', t('organizations'))}
            {item('/console/members', t('instanceMembers'))}
            {item('/console/events', t('events'))}
            {item('/console/webhooks', t('webhooks'))}
            {item('/console/audit-streams', t('auditStreams'))}
            {item('/console/keys', t('signingKeys'))}
            {item('/console/registered-clients', t('unboundRegisteredClients'))}
            {item('/console/features', t('features'))}
            {item('/console/settings', t('settings'))}
          </ul>
        </>
      )}
      {roles.size > 0 && (
        <>
          <h2>
            <OrgName orgId={orgId} me={me} session={session} />
          </h2>
          <ul>
            {roles.has('ORG_USER_MANAGER') && item(`${org}/users`, t('users'))}
            {roles.has('ORG_USER_MANAGER') && item(`${org}/groups`, t('groups'))}
            {roles.has('ORG_USER_MANAGER') && item(`${org}/agents`, t('agents'))}
            {roles.has('ORG_OWNER') && item(`${org}/registered-clients`, t('registeredClients'))}
            {roles.has('ORG_OWNER') && item(`${org}/projects`, t('projects'))}
            {roles.has('ORG_OWNER') && item(`${org}/members`, t('orgMembers'))}
            {roles.has('ORG_OWNER') && item(`${org}/login-policy`, t('loginPolicy'))}
            {roles.has('ORG_OWNER') && item(`${org}/webhooks`, t('orgWebhooks'))}
            {roles.has('ORG_OWNER') && item(`${org}/audit-streams`, t('auditStreams'))}
            {roles.has('ORG_OWNER') && item(`${org}/domains`, t('orgDomains'))}
            {roles.has('ORG_OWNER') && item(`${org}/idps`, t('identityProviders'))}
            {roles.has('ORG_OWNER') && item(`${org}/directories`, t('directories'))}
            {roles.has('ORG_OWNER') && item(`${org}/provisioning`, t('provisioning'))}
            {roles.has('ORG_OWNER') && item(`${org}/branding`, t('branding'))}
          </ul>
        </>
      )}
    </nav>
  );
}

/** The organization's name for an instance owner (GET /admin/v1/orgs/{orgId}); otherwise the domain of the user's own login name. */
function OrgName({ orgId, me, session }: { orgId: string; me: Me; session: Session }) {
  const owner = isInstanceOwner(me);
  const org = useLoad(() => (owner ? api<Org>('GET', `/admin/v1/orgs/${enc(orgId)}`) : Promise.resolve(null)), [orgId, owner]);
  const domain = orgId === me.orgId ? session.claims.preferred_username?.split('@')[1] : undefined;
  const name = org.data?.name ?? domain ?? orgId;
  return <>{t('organizationNamed', { name })}</>;
}
