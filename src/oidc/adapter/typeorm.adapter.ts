import Provider from 'oidc-provider';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import { LessThan } from 'typeorm';
import type { DataSource, Repository } from 'typeorm';
import type { SecretHasher } from '../../common/crypto/secret-hasher.js';
import { JwtTokenIds } from '../tokens/jwt-access-tokens.js';
import { jwtForHandle } from '../tokens/structured-token.rewrite.js';
import { OidcPayloadEntity } from './oidc-payload.entity.js';

/** Models whose tokens may be JWTs (RFC 9068), looked up by their verified `jti`. */
const JWT_MODELS = new Set(['AccessToken', 'ClientCredentials']);

/**
 * oidc-provider's storage interface over one table. Ids of tokens, codes and sessions are bearer
 * secrets, so rows are keyed by their keyed hash and the payload is stored without `jti` (DESIGN §5);
 * `find` puts the id back, since the caller had to present it. Every process reads the same rows, so
 * sessions, grants and tokens survive restarts and work across WORKERS and hosts (DESIGN §2).
 */
export class TypeOrmAdapter implements Adapter {
  private readonly repo: Repository<OidcPayloadEntity>;

  constructor(
    private readonly model: string,
    dataSource: DataSource,
    private readonly hasher: SecretHasher,
    private readonly jwtIds?: JwtTokenIds,
  ) {
    this.repo = dataSource.getRepository(OidcPayloadEntity);
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
    const { jti: _jti, ...stored } = payload;
    await this.repo.upsert(
      {
        model: this.model,
        idHash: this.hasher.hash(id),
        payload: JSON.stringify(stored),
        grantId: payload.grantId ?? null,
        uid: payload.uid ?? null,
        userCode: payload.userCode ?? null,
        expiresAt: expiresIn ? new Date(Date.now() + expiresIn * 1000) : null,
        consumedAt: null,
      },
      ['model', 'idHash'],
    );
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    const key = await this.keyOf(id);
    if (!key) return undefined;
    const row = await this.repo.findOneBy({ model: this.model, idHash: key });
    return row ? this.toPayload(row, id) : undefined;
  }

  /** The row key of an id: its keyed hash; for a JWT access token, that of its verified `jti`. */
  private async keyOf(id: string): Promise<string | undefined> {
    if (this.jwtIds && JWT_MODELS.has(this.model)) {
      const jwt = JwtTokenIds.looksLikeJwt(id) ? id : jwtForHandle(Provider.ctx?.req, id);
      if (jwt !== undefined) {
        const jti = await this.jwtIds.jtiOf(jwt);
        return jti === undefined ? undefined : this.hasher.hash(jti);
      }
    }
    return this.hasher.hash(id);
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    const row = await this.repo.findOneBy({ model: this.model, uid });
    // The session id is only known through the cookie; a session found by uid is used by its uid only.
    return row ? this.toPayload(row, undefined) : undefined;
  }

  async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    const row = await this.repo.findOneBy({ model: this.model, userCode });
    return row ? this.toPayload(row, undefined) : undefined;
  }

  async consume(id: string): Promise<void> {
    const key = await this.keyOf(id);
    if (key) await this.repo.update({ model: this.model, idHash: key }, { consumedAt: new Date() });
  }

  async destroy(id: string): Promise<void> {
    const key = await this.keyOf(id);
    if (key) await this.repo.delete({ model: this.model, idHash: key });
  }

  /** Revokes every token and code of a grant (RFC 6749 §10.5 code reuse, refresh token reuse, logout). */
  async revokeByGrantId(grantId: string): Promise<void> {
    await this.repo.delete({ model: this.model, grantId });
  }

  private toPayload(row: OidcPayloadEntity, id: string | undefined): AdapterPayload | undefined {
    if (row.expiresAt && row.expiresAt.getTime() <= Date.now()) return undefined;
    const payload = JSON.parse(row.payload) as AdapterPayload;
    if (id !== undefined) payload.jti = id;
    if (row.consumedAt) payload.consumed = Math.floor(row.consumedAt.getTime() / 1000);
    return payload;
  }
}

/** Deletes expired rows; run now and then by one timer per process (any process may do it). */
export async function purgeExpiredPayloads(dataSource: DataSource): Promise<void> {
  await dataSource.getRepository(OidcPayloadEntity).delete({ expiresAt: LessThan(new Date(Date.now() - 60_000)) });
}
