import type { OidcContext } from 'oidc-provider';
import type { DataSource } from 'typeorm';
import { ApplicationEntity } from '../../users/entities/application.entity.js';
import { UserEntity } from '../../users/entities/user.entity.js';
import { tokenAudience } from '../tokens/audience.js';

interface IntrospectedToken {
  kind: string;
  clientId: string;
  accountId?: string;
  aud?: string | string[];
  scope?: string;
}

/** What the introspection policy learned, for the response decoration in provider.holder.ts. */
export interface IntrospectionFacts {
  audience: string[];
  userId: string;
}

export const INTROSPECTION_FACTS = Symbol('portcullis.introspection');

/**
 * DESIGN §5: introspection answers `active:true` only when the introspecting client's id or its project
 * id is in the token's audience, and only while the token's user is active (state read on use); any
 * other case is oidc-provider's `{"active":false}`.
 */
export function introspectionPolicy(dataSource: DataSource) {
  return async (ctx: OidcContext, client: { clientId: string }, token: IntrospectedToken): Promise<boolean> => {
    if (token.kind === 'RefreshToken') return false;
    const userId = token.accountId ?? token.clientId;
    const user = await dataSource.getRepository(UserEntity).findOne({ where: { id: userId }, select: { id: true, state: true } });
    // A client-credentials token of an application (not a machine user) has no user; none are issued.
    if (!user || user.state !== 'active') return false;
    const audience = await tokenAudience(dataSource, token);
    const app = await dataSource.getRepository(ApplicationEntity).findOne({ where: { clientId: client.clientId }, select: { projectId: true } });
    const allowed = audience.includes(client.clientId) || (app !== null && audience.includes(app.projectId));
    if (allowed) ctx[INTROSPECTION_FACTS] = { audience, userId } satisfies IntrospectionFacts;
    return allowed;
  };
}
