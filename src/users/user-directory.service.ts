import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { FindOptionsOrder, FindOptionsSelect, FindOptionsWhere } from 'typeorm';
import { DomainError, ErrorCode } from '../common/errors/domain-error.js';
import { PersonalAccessTokenEntity } from './entities/personal-access-token.entity.js';
import { PublicKeyEntity } from './entities/public-key.entity.js';
import { UserEntity } from './entities/user.entity.js';
import { listUsers } from './queries/user-directory.js';
import { userNames } from './queries/user-names.js';
import { objectNames } from './queries/object-names.js';
import type { ObjectNameRow } from './queries/object-names.js';
import { organizationExists } from './queries/organizations.js';
import type { UserListQuery, UserListRow } from './queries/user-directory.js';

export interface Page {
  limit: number;
  offset: number;
}

/** A user as a list beside its id names it. */
export interface UserName {
  userId: string;
  loginName: string;
  displayName: string | null;
}

/** A credential as reads show it: when it was made and until when it works, never its secret material. */
export interface CredentialInfo {
  id: string;
  createdAt: Date;
  expiresAt: Date | null;
}

/**
 * Reads of an organization's users and of what credentials they hold. Reading is not acting on a user
 * (SECURITY.md, "Who may act on whom"): the organization role of the route is all they need. Users of
 * other organizations are not found.
 */
@Injectable()
export class UserDirectory {
  constructor(private readonly dataSource: DataSource) {}

  /** An unknown organization is 404 like under every other route (an IAM_OWNER may look into any); asked only when no user was found. */
  async list(orgId: string, query: UserListQuery): Promise<{ rows: UserListRow[]; total: number }> {
    const page = await listUsers(this.dataSource.manager, orgId, query);
    if (page.total === 0 && !(await organizationExists(this.dataSource, orgId))) throw DomainError.notFound('organization');
    return page;
  }

  /**
   * The login names (`<userName>@<primary domain>`) and display names of these users, in every
   * organization: only for a caller who may read every user (an IAM_OWNER), as naming a user is reading it.
   * Ids of no user are left out, and only an exact id answers (MariaDB's PAD SPACE would match `x ` to `x`).
   */
  async namesOf(ids: string[]): Promise<UserName[]> {
    const wanted = new Set(ids);
    const rows = await userNames(this.dataSource.manager, [...wanted]);
    return rows
      .filter((row) => wanted.has(row.id))
      .map((row) => ({ userId: row.id, loginName: `${row.user_name}@${row.primary_domain}`, displayName: row.display_name }));
  }

  /**
   * The names of the organizations, projects, applications and groups of these ids, in every organization: like
   * `namesOf`, only for a caller who may read them all (an IAM_OWNER). Only an exact id answers.
   */
  async objectNamesOf(ids: string[]): Promise<ObjectNameRow[]> {
    const wanted = new Set(ids);
    const rows = await objectNames(this.dataSource.manager, [...wanted]);
    return rows.filter((row) => wanted.has(row.id)).map(({ id, kind, name }) => ({ id, kind, name }));
  }

  async get(orgId: string, userId: string): Promise<UserEntity> {
    const user = await this.dataSource.manager.findOneBy(UserEntity, { id: userId, orgId });
    if (!user) throw DomainError.notFound('user');
    return user;
  }

  async keys(orgId: string, userId: string, page: Page): Promise<{ items: CredentialInfo[]; total: number }> {
    await this.machine(orgId, userId);
    return this.page(PublicKeyEntity, { ownerType: 'machine', ownerId: userId }, page);
  }

  async personalAccessTokens(orgId: string, userId: string, page: Page): Promise<{ items: CredentialInfo[]; total: number }> {
    await this.machine(orgId, userId);
    return this.page(PersonalAccessTokenEntity, { userId }, page);
  }

  /**
   * A page of credentials, oldest first, with only the columns a read shows. Counted apart: TypeORM's
   * findAndCount answers a total of 0 when `select` and `take` are combined.
   */
  private async page<T extends PublicKeyEntity | PersonalAccessTokenEntity>(
    entity: new () => T,
    where: FindOptionsWhere<T>,
    page: Page,
  ): Promise<{ items: CredentialInfo[]; total: number }> {
    const manager = this.dataSource.manager;
    const items = await manager.find(entity, {
      select: { id: true, createdAt: true, expiresAt: true } as FindOptionsSelect<T>,
      where,
      order: { createdAt: 'ASC', id: 'ASC' } as FindOptionsOrder<T>,
      take: page.limit,
      skip: page.offset,
    });
    return { items, total: await manager.countBy(entity, where) };
  }

  /** Only machine users hold keys and tokens (as only they can be issued one). */
  private async machine(orgId: string, userId: string): Promise<void> {
    const user = await this.get(orgId, userId);
    if (user.type !== 'machine') {
      throw new DomainError(ErrorCode.FailedPrecondition, 'only machine users have client secrets, keys and personal access tokens');
    }
  }
}
