import { Column, Entity, PrimaryColumn } from 'typeorm';

export type ContactKind = 'email' | 'phone';

/**
 * Every e-mail address and phone number of a human user with its type (the primary ones are also on
 * `users.email` / `users.phone`). Lower-cased copies, kept for searching: SCIM filters such as
 * `emails[type eq "work"]` and `phoneNumbers.value eq "…"` are answered from here by index.
 */
@Entity({ name: 'user_contacts' })
export class UserContactEntity {
  @PrimaryColumn({ name: 'user_id', type: 'varchar', length: 64 })
  userId: string;

  @PrimaryColumn({ type: 'varchar', length: 8 })
  kind: ContactKind;

  @PrimaryColumn({ type: 'int' })
  position: number;

  @Column({ name: 'org_id', type: 'varchar', length: 64 })
  orgId: string;

  @Column({ name: 'value_lower', type: 'varchar', length: 320 })
  valueLower: string;

  @Column({ name: 'type_lower', type: 'varchar', length: 64, nullable: true })
  typeLower: string | null;

  @Column({ name: 'is_primary', type: 'boolean', default: false })
  isPrimary: boolean;
}
