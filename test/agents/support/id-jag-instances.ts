import assert from 'node:assert/strict';
import { createCaller, unique } from '../../support/fixtures.js';
import { useOtherInstance } from '../../support/other-instance.js';
import type { TestService } from '../../support/service.js';
import { createHuman, createOidcApp, createProject, PASSWORD } from '../../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../../oidc/support/oidc-fixtures.js';
import { EXCHANGE, RP } from '../../oidc/support/token-exchange.js';

export const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

type Project = { orgId: string; projectId: string; primaryDomain: string };

/**
 * What docs/agents.md, "Enterprise-managed authorization", needs on both sides: at the enterprise IdP (`ent`) token
 * exchange on, an ORG_OWNER to register external resources and the agent's application, which exchanges ID tokens;
 * at the MCP server's authorization server (`rs`) the API application of the resource, the agent's application, which
 * redeems ID-JAGs with the JWT bearer grant (RFC 7523), and `ent` as an upstream IdP that accepts them.
 */
export interface IdJagTrust {
  entProject: Project;
  owner: { userId: string; token: string };
  entAgent: OidcApp;
  rsProject: Project;
  rsApi: { clientId: string; clientSecret: string };
  rsAgent: OidcApp;
  /** `ent` as an upstream IdP of `rs`'s organization. */
  idpId: string;
  /** Granted in `ent`'s project, with an account of the same verified address at `rs` that the IdP's e-mail rule links. */
  alice: { entId: string; loginName: string; email: string; rsId: string; rsUserName: string };
}

/**
 * The enterprise IdP for the enclosing suite: another Portcullis instance in a process of its own with its own
 * database, started before the suite's tests and stopped after them.
 */
export function useEnterpriseIdp(): TestService {
  return useOtherInstance();
}

/**
 * Sets up both sides for ID-JAGs of `resource` (see IdJagTrust). `entAgentAuth` is how the agent authenticates at
 * the enterprise IdP. No external resource is registered at `ent`: each suite registers its own.
 */
export async function setUpIdJagTrust(
  ent: TestService,
  rs: TestService,
  { resource, entAgentAuth }: { resource: string; entAgentAuth: 'client_secret_basic' | 'client_secret_post' },
): Promise<IdJagTrust> {
  assert.equal((await ent.api('PUT', '/admin/v1/features', { token: ent.adminToken, body: { tokenExchange: true } })).status, 200);
  const entProject = await createProject(ent);
  const owner = await createCaller(ent, entProject.orgId, { org: ['ORG_OWNER'] });
  const entAgent = await createOidcApp(ent, entProject, { authMethod: entAgentAuth, grantTypes: ['authorization_code', EXCHANGE] }, RP);

  const rsProject = await createProject(rs);
  const api = await rs.api('POST', `/management/v1/orgs/${rsProject.orgId}/projects/${rsProject.projectId}/apps/api`, {
    token: rs.adminToken,
    body: {
      name: unique('files'),
      authMethod: 'client_secret_basic',
      resourceUri: resource,
      scopes: [{ name: 'files:read', description: 'Read your files' }],
    },
  });
  assert.equal(api.status, 201, api.text);
  const rsAgent = await createOidcApp(rs, rsProject, { authMethod: 'client_secret_basic', grantTypes: ['authorization_code', JWT_BEARER] }, RP);
  const idp = await rs.api('POST', `/management/v1/orgs/${rsProject.orgId}/idps`, {
    token: rs.adminToken,
    body: {
      type: 'oidc',
      name: 'Enterprise IdP',
      issuer: ent.url,
      clientId: 'rs-at-ent',
      clientSecret: 'unused-secret-1',
      link: { by: 'email', from: 'email' },
      acceptIdJag: true,
    },
  });
  assert.equal(idp.status, 201, idp.text);

  const entAlice = await createHuman(ent, entProject.orgId);
  const grant = await ent.api('POST', `/management/v1/orgs/${entProject.orgId}/projects/${entProject.projectId}/grants`, {
    token: ent.adminToken,
    body: { userId: entAlice.userId, roles: [] },
  });
  assert.equal(grant.status, 201, grant.text);
  const email = `${entAlice.userName}@example.com`;
  const rsUserName = unique('alice');
  const rsAlice = await rs.api('POST', `/management/v1/orgs/${rsProject.orgId}/users/human`, {
    token: rs.adminToken,
    body: { userName: rsUserName, profile: { firstName: 'Alice', lastName: 'A' }, email: { email, isEmailVerified: true }, password: PASSWORD },
  });
  assert.equal(rsAlice.status, 201, rsAlice.text);

  return {
    entProject,
    owner,
    entAgent,
    rsProject,
    rsApi: { clientId: api.body.clientId, clientSecret: api.body.clientSecret },
    rsAgent,
    idpId: idp.body.id,
    alice: { entId: entAlice.userId, loginName: `${entAlice.userName}@${entProject.primaryDomain}`, email, rsId: rsAlice.body.userId, rsUserName },
  };
}
