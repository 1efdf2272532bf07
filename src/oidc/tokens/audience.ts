import { In } from 'typeorm';
import type { DataSource } from 'typeorm';
import { ApplicationEntity } from '../../users/entities/application.entity.js';

/** Resource indicator (RFC 8707) and audience value of the Portcullis admin, management and SCIM APIs. */
export const API_AUDIENCE = 'urn:portcullis:api';
/** DESIGN §5 scope adding the Portcullis API to a token's audience. */
export const API_AUDIENCE_SCOPE = 'urn:portcullis:iam:api:aud';
const PROJECT_SCOPE = /^urn:portcullis:iam:org:project:id:([^:\s]+):aud$/;

/** Projects requested through `urn:portcullis:iam:org:project:id:{projectId}:aud` scopes. */
export function requestedProjects(scope: string | undefined): string[] {
  return (scope ?? '').split(' ').flatMap((s) => PROJECT_SCOPE.exec(s)?.[1] ?? []);
}

/** Whether a scope value is one of the audience scopes of DESIGN §5 (allowed beyond the OIDC ones). */
export function isAudienceScope(scope: string): boolean {
  return scope === API_AUDIENCE_SCOPE || PROJECT_SCOPE.test(scope);
}

/**
 * DESIGN §5: the audience of a token is the project id of its client and the client ids of every
 * application in that project, plus requested projects (and the API when asked for). Machine users
 * (no project) always get the API.
 */
export async function audienceOf(dataSource: DataSource, clientId: string, scope: string | undefined): Promise<string[]> {
  const audience = new Set<string>();
  const apps = dataSource.getRepository(ApplicationEntity);
  const app = await apps.findOne({ where: { clientId }, select: { projectId: true } });
  const projects = [...(app ? [app.projectId] : []), ...requestedProjects(scope)];
  if (!app) audience.add(API_AUDIENCE);
  if ((scope ?? '').split(' ').includes(API_AUDIENCE_SCOPE)) audience.add(API_AUDIENCE);
  if (projects.length > 0) {
    for (const p of projects) audience.add(p);
    const members = await apps.find({ where: { projectId: In(projects) }, select: { clientId: true } });
    for (const m of members) audience.add(m.clientId);
  }
  return [...audience];
}

/** The audience of an issued token: what oidc-provider recorded (its resource) plus DESIGN §5's. */
export async function tokenAudience(dataSource: DataSource, token: { clientId: string; scope?: string; aud?: string | string[] }): Promise<string[]> {
  return [...new Set([...[token.aud ?? []].flat(), ...(await audienceOf(dataSource, token.clientId, token.scope))])];
}
