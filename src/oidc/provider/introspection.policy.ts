import type { OidcContext } from 'oidc-provider';
import type { DataSource } from 'typeorm';
import { requestLookups } from '../adapter/request-lookups.js';
import { tokenAudience, tokenUser } from '../tokens/audience.js';

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
  /** `<userName>@<org primary domain>` (DESIGN §5). */
  username: string;
}

export const INTROSPECTION_FACTS = Symbol('portcullis.introspection');

/**
 * DESIGN §5: introspection answers `active:true` only when the introspecting client's id or its project
 * id is in the token's audience, and only while the token's user is active (state read on use); any
 * other case is oidc-provider's `{"active":false}`. The user (state on use, and the organization's
 * domain for `username`) was read with the token (typeorm.adapter.ts); the introspecting client's
 * project comes with the client.
 */
export function introspectionPolicy(dataSource: DataSource) {
  return async (ctx: OidcContext, client: { clientId: string; portcullis_project_id?: string | null }, token: IntrospectedToken): Promise<boolean> => {
    if (token.kind === 'RefreshToken') return false;
    const userId = token.accountId ?? token.clientId;
    const known = requestLookups(ctx)?.users.get(userId);
    const user = known !== undefined ? known : await tokenUser(dataSource, userId);
    // A client-credentials token of an application (not a machine user) has no user; none are issued.
    if (!user || user.state !== 'active') return false;
    const audience = await tokenAudience(dataSource, token);
    const project = client.portcullis_project_id;
    const allowed = audience.includes(client.clientId) || (typeof project === 'string' && audience.includes(project));
    if (allowed) ctx[INTROSPECTION_FACTS] = { audience, userId, username: `${user.userName}@${user.primaryDomain ?? ''}` } satisfies IntrospectionFacts;
    return allowed;
  };
}
