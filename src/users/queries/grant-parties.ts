import type { DataSource, EntityManager } from 'typeorm';
import { ApplicationEntity } from '../entities/application.entity.js';
import { PublicKeyEntity } from '../entities/public-key.entity.js';
import { UserEntity } from '../entities/user.entity.js';

/**
 * Look-ups of the OIDC grants (JWT profile, RFC 7523; token exchange, RFC 8693): the keys a machine user
 * or an application signs its assertions with, and the users a token names.
 */

/** The machine user's key of that id (the assertion's `kid`), expired or not. */
export function machineUserKey(dataSource: DataSource, machineUserId: string, kid: string): Promise<PublicKeyEntity | null> {
  return dataSource.getRepository(PublicKeyEntity).findOneBy({ id: kid, ownerType: 'machine', ownerId: machineUserId });
}

/** The key of that id of the application with that client id; null when either does not exist. */
export async function applicationKeyByClientId(dataSource: DataSource, clientId: string, kid: string): Promise<PublicKeyEntity | null> {
  const app = await dataSource.getRepository(ApplicationEntity).findOneBy({ clientId });
  return app ? dataSource.getRepository(PublicKeyEntity).findOneBy({ id: kid, ownerType: 'application', ownerId: app.id }) : null;
}

/** The user of that id, or null. */
export function userById(dataSource: DataSource, userId: string): Promise<UserEntity | null> {
  return dataSource.getRepository(UserEntity).findOneBy({ id: userId });
}

/** The user of that id inside the caller's transaction; fails when there is none. */
export function userByIdOrFail(manager: EntityManager, userId: string): Promise<UserEntity> {
  return manager.findOneByOrFail(UserEntity, { id: userId });
}
