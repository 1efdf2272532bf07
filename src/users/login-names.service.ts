import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { OrganizationEntity } from './entities/organization.entity.js';
import type { UserEntity } from './entities/user.entity.js';

/** Login names (docs/product-rules.md, "OpenID Connect and OAuth"): `<userName>@<org primary domain>` (the login UI resolves them: src/login/login-users.ts). */
@Injectable()
export class LoginNamesService {
  constructor(private readonly dataSource: DataSource) {}

  async loginNameOf(user: Pick<UserEntity, 'userName' | 'orgId'>): Promise<string> {
    const org = await this.dataSource.getRepository(OrganizationEntity).findOne({ where: { id: user.orgId }, select: { primaryDomain: true } });
    return `${user.userName}@${org?.primaryDomain ?? ''}`;
  }
}
