import { Column, Entity, PrimaryColumn } from 'typeorm';
import { timestampColumn } from '../../common/database/columns.js';

/** One user's membership of one group; the user is of the group's organization. */
@Entity({ name: 'group_members' })
export class GroupMemberEntity {
  @PrimaryColumn({ name: 'group_id', type: 'varchar', length: 64 })
  groupId: string;

  @PrimaryColumn({ name: 'user_id', type: 'varchar', length: 64 })
  userId: string;

  @Column({ name: 'added_at', ...timestampColumn })
  addedAt: Date;
}
