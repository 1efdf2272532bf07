import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { OrganizationEntity } from './entities/organization.entity.js';
import { UserEntity } from './entities/user.entity.js';

/**
 * Login names (DESIGN §5): `<userName>@<org primary domain>`; the bare userName also works while it is
 * unique in the instance. User names may themselves contain `@`, so the last `@` separates the domain
 * only when an organization has that primary domain.
 */
@Injectable()
export class LoginNamesService {
  constructor(private readonly dataSource: DataSource) {}

  async findUser(loginName: string): Promise<UserEntity | null> {
    const name = loginName.trim().toLowerCase();
    if (!name) return null;
    const at = name.lastIndexOf('@');
    if (at > 0) {
      const org = await this.dataSource.getRepository(OrganizationEntity).findOneBy({ primaryDomain: name.slice(at + 1) });
      if (org) return this.dataSource.getRepository(UserEntity).findOneBy({ orgId: org.id, userNameLower: name.slice(0, at) });
    }
    const matches = await this.dataSource.getRepository(UserEntity).find({ where: { userNameLower: name }, take: 2 });
    return matches.length === 1 ? matches[0] : null;
  }

  async loginNameOf(user: Pick<UserEntity, 'userName' | 'orgId'>): Promise<string> {
    const org = await this.dataSource.getRepository(OrganizationEntity).findOne({ where: { id: user.orgId }, select: { primaryDomain: true } });
    return `${user.userName}@${org?.primaryDomain ?? ''}`;
  }
}
