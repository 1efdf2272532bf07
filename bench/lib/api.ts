import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The bootstrap IAM_OWNER's personal access token the service wrote on its first start. */
export const adminToken = (dataDir: string) => readFileSync(join(dataDir, 'admin.pat'), 'utf8').trim();

/** One JSON call to the management/admin API; anything but 2xx fails the run. */
export async function call(url: string, token: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(url + path, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${(await res.text()).slice(0, 500)}`);
  return res.json();
}

/**
 * A new organization with a project and a public OIDC application (code flow with PKCE) redirecting to `redirectUri`:
 * the sign-in page scenarios' client.
 */
export async function publicSignInApp(url: string, token: string, name: string, redirectUri: string): Promise<{ orgId: string; clientId: string }> {
  const org = await call(url, token, 'POST', '/admin/v1/orgs', { name });
  const project = await call(url, token, 'POST', `/management/v1/orgs/${org.id}/projects`, { name });
  const created = await call(url, token, 'POST', `/management/v1/orgs/${org.id}/projects/${project.id}/apps/oidc`, {
    name,
    redirectUris: [redirectUri],
    postLogoutRedirectUris: [],
    responseTypes: ['code'],
    grantTypes: ['authorization_code'],
    authMethod: 'none',
    accessTokenType: 'opaque',
    devMode: true,
  });
  return { orgId: org.id as string, clientId: created.clientId as string };
}
