import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { AccessTokenVerifier } from '../../common/auth/principal-resolver.js';
import { ProviderHolder } from '../provider/provider.holder.js';
import { API_AUDIENCE, tokenAudience } from './audience.js';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { UserAccess } from '../../users/acting/user-access.service.js';
import { actOf, impersonationHolds } from '../grants/impersonation.js';

/**
 * ACCESS_TOKEN_VERIFIER for the admin, management and SCIM APIs: an access token of this instance
 * (opaque or JWT, looked up in the database so revocation and logout count) whose audience includes the
 * Portcullis API and whose client may hold it. The user's state is checked by the principal resolver on every use.
 */
@Injectable()
export class OidcAccessTokenVerifier implements AccessTokenVerifier {
  constructor(
    private readonly holder: ProviderHolder,
    private readonly dataSource: DataSource,
    private readonly access: UserAccess,
    private readonly uow: UnitOfWork,
  ) {}

  async verify(token: string): Promise<{ userId: string; clientId: string; jkt?: string } | null> {
    const { provider } = this.holder;
    const found = (await provider.AccessToken.find(token)) ?? (await provider.ClientCredentials.find(token));
    if (!found?.isValid) return null;
    const audience = await tokenAudience(this.dataSource, found);
    // Only a machine user's own token or a first-party (apiAccess) application's carries it (tokenAudience).
    if (!audience.includes(API_AUDIENCE)) return null;
    if (found.grantId && !(await provider.Grant.find(found.grantId))) return null;
    // An impersonation ends with its actor's right to it (grants/impersonation.ts); it is always of a person.
    const act = actOf(found);
    if (act && (!found.accountId || !(await impersonationHolds(this.access, this.uow.manager, act, found.accountId)))) return null;
    // A DPoP-bound token (RFC 9449 §6) names its key; the bearer strategy then asks for a proof of it.
    const jkt = typeof found.jkt === 'string' ? found.jkt : undefined;
    return { userId: found.accountId ?? found.clientId, clientId: found.clientId, ...(jkt ? { jkt } : {}) };
  }
}
