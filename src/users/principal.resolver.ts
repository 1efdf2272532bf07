import { Inject, Injectable, Optional } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ACCESS_TOKEN_VERIFIER } from '../common/auth/principal-resolver.js';
import type { AccessTokenVerifier, PrincipalResolver } from '../common/auth/principal-resolver.js';
import type { Principal } from '../common/auth/principal.js';
import { SecretHasher } from '../common/crypto/secret-hasher.js';
import { PersonalAccessTokenEntity } from './entities/personal-access-token.entity.js';
import { UserEntity } from './entities/user.entity.js';
import { MembershipsService } from './memberships.service.js';

/**
 * Resolves bearer tokens: personal access tokens by the hash of the token, access tokens through the
 * OIDC layer when it is loaded. The user's state is read on every use, so a deactivated, locked or
 * removed user's tokens stop working at once, on every process.
 */
@Injectable()
export class DomainPrincipalResolver implements PrincipalResolver {
  constructor(
    private readonly dataSource: DataSource,
    private readonly hasher: SecretHasher,
    private readonly memberships: MembershipsService,
    @Optional() @Inject(ACCESS_TOKEN_VERIFIER) private readonly accessTokens?: AccessTokenVerifier,
  ) {}

  async resolve(token: string): Promise<Principal | null> {
    const pat = await this.dataSource.getRepository(PersonalAccessTokenEntity).findOneBy({ tokenHash: this.hasher.hash(token) });
    if (pat) {
      if (pat.expiresAt && pat.expiresAt.getTime() <= Date.now()) return null;
      return this.principalOf(pat.userId, { kind: 'personal_access_token', tokenId: pat.id });
    }
    const access = await this.accessTokens?.verify(token);
    if (access) return this.principalOf(access.userId, { kind: 'access_token', clientId: access.clientId });
    return null;
  }

  private async principalOf(userId: string, credential: Principal['credential']): Promise<Principal | null> {
    const user = await this.dataSource.getRepository(UserEntity).findOne({ where: { id: userId }, select: { id: true, orgId: true, type: true, state: true } });
    if (!user || user.state !== 'active') return null;
    const roles = await this.memberships.rolesOf(userId);
    return { userId, orgId: user.orgId, userType: user.type, ...roles, credential };
  }
}
