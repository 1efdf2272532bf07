import { createPublicKey } from 'node:crypto';
import Provider from 'oidc-provider';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import { In } from 'typeorm';
import type { DataSource } from 'typeorm';
import { ApplicationEntity } from '../../users/entities/application.entity.js';
import { MachineSecretEntity } from '../../users/entities/machine-secret.entity.js';
import { PublicKeyEntity } from '../../users/entities/public-key.entity.js';
import { UserEntity } from '../../users/entities/user.entity.js';
import { JWT_BEARER_GRANT } from '../tokens/grant-types.js';

/** Our own client metadata (oidc-provider `extraClientMetadata`), read by policies and the audience rule. */
export const CLIENT_EXTRA = ['portcullis_kind', 'portcullis_org_id', 'portcullis_project_id', 'portcullis_dev_mode', 'portcullis_access_token_type', 'portcullis_userinfo_assertion'] as const;

/**
 * Read-only view of clients for oidc-provider: OIDC and API applications by client id, and machine
 * users (client id = user id) for client_credentials. `client_secret` carries the stored keyed hash;
 * the provider compares presented secrets through SecretHasher (see provider.factory.ts), so no
 * secret is ever held in clear. Read on every request: a new key or secret works at once everywhere.
 */
export class ClientStore implements Adapter {
  constructor(private readonly dataSource: DataSource) {}

  async find(clientId: string): Promise<AdapterPayload | undefined> {
    const app = await this.dataSource.getRepository(ApplicationEntity).findOneBy({ clientId });
    if (app) return this.applicationClient(app);
    return this.machineClient(clientId);
  }

  private async applicationClient(app: ApplicationEntity): Promise<AdapterPayload> {
    const api = app.kind === 'api';
    const grantTypes = api ? [] : app.grantTypes.filter((g) => g !== 'refresh_token' || app.grantTypes.includes('authorization_code'));
    return {
      client_id: app.clientId,
      client_name: app.name,
      ...(app.clientSecretHash ? { client_secret: app.clientSecretHash } : {}),
      token_endpoint_auth_method: app.authMethod,
      // Spec §B: introspection accepts client_secret_basic and private_key_jwt only.
      introspection_endpoint_auth_method: app.authMethod === 'client_secret_post' ? 'client_secret_basic' : app.authMethod,
      revocation_endpoint_auth_method: app.authMethod,
      redirect_uris: api ? [] : app.redirectUris,
      post_logout_redirect_uris: api ? [] : app.postLogoutRedirectUris,
      response_types: api ? [] : app.responseTypes,
      grant_types: grantTypes,
      application_type: 'web',
      // auth_time in every ID token (OIDC Registration §2), as relying parties of ZITADEL expect.
      require_auth_time: true,
      ...(app.authMethod === 'private_key_jwt' ? { jwks: { keys: await this.jwks('application', [app.id]) } } : {}),
      portcullis_kind: app.kind,
      portcullis_org_id: app.orgId,
      portcullis_project_id: app.projectId,
      portcullis_dev_mode: app.devMode,
      portcullis_access_token_type: app.accessTokenType,
      portcullis_userinfo_assertion: app.idTokenUserinfoAssertion,
    };
  }

  /** A machine user with a client secret can use client_credentials (DESIGN §5). */
  private async machineClient(userId: string): Promise<AdapterPayload | undefined> {
    const user = await this.dataSource.getRepository(UserEntity).findOne({
      where: { id: userId, type: 'machine' },
      select: { id: true, orgId: true, userName: true, accessTokenType: true },
    });
    if (!user) return undefined;
    // JWT profile grant: the assertion is the credential; the grant verifies it (jwt-profile.grant.ts).
    if (currentContext()?.oidc?.params?.grant_type === JWT_BEARER_GRANT && !currentContext()?.headers?.authorization) {
      return { ...machineBase(user), token_endpoint_auth_method: 'none', grant_types: [JWT_BEARER_GRANT] };
    }
    const secret = await this.dataSource.getRepository(MachineSecretEntity).findOneBy({ userId });
    if (!secret) return undefined;
    return {
      ...machineBase(user),
      client_secret: secret.secretHash,
      token_endpoint_auth_method: machineAuthMethod(),
      grant_types: ['client_credentials', JWT_BEARER_GRANT],
    };
  }

  private async jwks(ownerType: 'application' | 'machine', ownerIds: string[]): Promise<object[]> {
    const keys = await this.dataSource.getRepository(PublicKeyEntity).findBy({ ownerType, ownerId: In(ownerIds) });
    const now = Date.now();
    return keys
      .filter((k) => !k.expiresAt || k.expiresAt.getTime() > now)
      .map((k) => ({ ...createPublicKey(k.publicKey).export({ format: 'jwk' }), kid: k.id, use: 'sig' }));
  }

  // The remaining adapter methods do not apply to clients: they are managed by the management API.
  async upsert(): Promise<void> {}
  async findByUid(): Promise<undefined> {
    return undefined;
  }
  async findByUserCode(): Promise<undefined> {
    return undefined;
  }
  async consume(): Promise<void> {}
  async destroy(): Promise<void> {}
  async revokeByGrantId(): Promise<void> {}
}

/**
 * Spec §B lets a machine user send its secret in a Basic header or in the body; oidc-provider holds one
 * method per client, so the method is the one this request uses (still exactly one per request).
 */
function machineAuthMethod(): 'client_secret_basic' | 'client_secret_post' {
  const ctx = currentContext();
  return ctx?.headers?.authorization ? 'client_secret_basic' : 'client_secret_post';
}

/** oidc-provider exposes the request being handled through its AsyncLocalStorage (Provider.ctx). */
function currentContext(): { headers?: Record<string, string | undefined>; oidc?: { params?: Record<string, unknown> } } | undefined {
  return Provider.ctx;
}

function machineBase(user: Pick<UserEntity, 'id' | 'userName' | 'orgId' | 'accessTokenType'>) {
  return {
    client_id: user.id,
    client_name: user.userName,
    redirect_uris: [],
    response_types: [],
    portcullis_kind: 'machine',
    portcullis_org_id: user.orgId,
    portcullis_access_token_type: user.accessTokenType ?? 'opaque',
  };
}
