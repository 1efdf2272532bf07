import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { EntityManager } from 'typeorm';
import { insertValues } from '../common/database/insert-values.js';
import { placeholders } from '../common/database/placeholders.js';
import { UnitOfWork } from '../common/database/unit-of-work.js';
import { isUniqueViolation } from '../common/database/unique-violation.js';
import { EventStore } from '../common/events/event-store.js';
import type { NewEvent } from '../common/events/event-store.js';
import type { JsonObject } from '../common/database/columns.js';
import { InstanceEntity, INSTANCE_ID } from './entities/instance.entity.js';
import { OrganizationEntity } from './entities/organization.entity.js';
import { countAdded } from './org-user-counts.js';
import { OrganizationsService } from './organizations.service.js';
import { searchText } from './rules/user-search.js';
import { InstanceSettings } from '../settings/instance-settings.service.js';

/** A human user ready to store: validated and normalised by the caller, password already hashed. */
export interface ImportedHuman {
  id: string;
  orgId: string;
  userName: string;
  firstName: string;
  lastName: string;
  displayName: string;
  nickName: string | null;
  preferredLanguage: string;
  gender: string | null;
  /** Null for a user that moves in without an address (a migration); the import always has one. */
  email: string | null;
  emailVerified: boolean;
  /** Normalised (see phone.ts). */
  phone: string | null;
  phoneVerified: boolean;
  /** Stored as given: verified at login by its own algorithm and re-hashed to bcrypt then. */
  passwordHash: string | null;
  passwordChangeRequired: boolean;
  /** A second factor owed at the next sign-in (a moved-in `CONFIGURE_TOTP`); none when not given. */
  mfaEnrolmentRequired?: boolean;
  /** `inactive` for a user disabled at its source; active when not given. */
  state?: 'active' | 'inactive';
  /** When the user was created at its source (epoch ms); now when not given. */
  createdAt?: number;
}

/** What a caller writes beside a batch of users, in the batch's transaction (a migration's factors, its origin). */
export interface ImportBatchExtras {
  /** Merged into each `user.human.added` payload, e.g. `{source: "migration", migrationId}`. */
  origin?: JsonObject;
  alsoWrite?: (manager: EntityManager, users: ImportedHuman[]) => Promise<void>;
}

interface ImportBatchResult {
  inserted: string[];
  rejected: { userId: string; message: string }[];
}

// IN (...) lists per look-up query, well below every driver's parameter limit.
const LOOKUP_CHUNK = 1000;

/**
 * The import's write path: many users and their `user.human.added` events per transaction
 * with multi-row inserts. A user is only ever written together with its event, so a crash leaves whole
 * users; a batch that fails anyway (a concurrent writer took a userName) is retried one user per
 * transaction, so one bad user cannot sink the others.
 */
@Injectable()
export class UserImportWriter {
  constructor(
    private readonly dataSource: DataSource,
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
    private readonly organizations: OrganizationsService,
    private readonly settings: InstanceSettings,
  ) {}

  async instanceDefaults(): Promise<{ defaultLanguage: string; passwordMinLength: number }> {
    const instance = await this.dataSource.getRepository(InstanceEntity).findOneBy({ id: INSTANCE_ID });
    if (!instance) throw new Error('the instance is not bootstrapped');
    // The minimum length of the instance's password policy (docs/operations.md, "Settings").
    return { defaultLanguage: instance.defaultLanguage, passwordMinLength: (await this.settings.get()).passwordPolicy.minLength };
  }

  /**
   * Creates the organization with the given id unless it exists. `exists` also when a concurrent
   * import created it first; `conflict` when another organization already has its primary domain.
   */
  async ensureOrg(editorUserId: string, orgId: string, name: string): Promise<'created' | 'exists' | 'conflict'> {
    if (await this.dataSource.manager.existsBy(OrganizationEntity, { id: orgId })) return 'exists';
    try {
      await this.uow.run((manager) => this.organizations.insert(manager, editorUserId, name, orgId));
      return 'created';
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      return (await this.dataSource.manager.existsBy(OrganizationEntity, { id: orgId })) ? 'exists' : 'conflict';
    }
  }

  /** Which of these ids are taken by any user of the instance (ids are instance-wide). */
  existingUserIds(ids: string[]): Promise<Set<string>> {
    return this.lookUp('SELECT id AS v FROM users WHERE id IN', [], ids);
  }

  /** Which of these ids belonged to a removed user: never given again (OIDC Core §2, `sub`). */
  removedUserIds(ids: string[]): Promise<Set<string>> {
    return this.lookUp('SELECT id AS v FROM removed_users WHERE id IN', [], ids);
  }

  /** Which of these lower-cased userNames the organization already has (docs/product-rules.md, "Domain": case-insensitive). */
  existingUserNames(orgId: string, userNamesLower: string[]): Promise<Set<string>> {
    return this.lookUp('SELECT user_name_lower AS v FROM users WHERE org_id = ? AND user_name_lower IN', [orgId], userNamesLower);
  }

  /**
   * Which of these lower-cased addresses a user of the organization holds verified: an imported user with one of
   * them arrives unverified (docs/product-rules.md, "Verified addresses").
   */
  verifiedEmails(orgId: string, emailsLower: string[]): Promise<Set<string>> {
    return this.lookUp('SELECT email_lower AS v FROM users WHERE org_id = ? AND email_verified = 1 AND email_lower IN', [orgId], emailsLower);
  }

  /** `<select> (?, …)` in chunks; plain SQL, since TypeORM's `In()` costs more per value than the query. */
  private async lookUp(select: string, fixed: unknown[], values: string[]): Promise<Set<string>> {
    const found = new Set<string>();
    for (let i = 0; i < values.length; i += LOOKUP_CHUNK) {
      const chunk = values.slice(i, i + LOOKUP_CHUNK);
      const rows: { v: string }[] = await this.dataSource.query(`${select} (${placeholders(chunk.length)})`, [...fixed, ...chunk]);
      for (const row of rows) found.add(row.v);
    }
    return found;
  }

  /** Stores the users and their events in one transaction; on failure, one transaction per user. */
  async insertBatch(editorUserId: string, users: ImportedHuman[], extras: ImportBatchExtras = {}): Promise<ImportBatchResult> {
    if (users.length === 0) return { inserted: [], rejected: [] };
    try {
      await this.uow.run((manager) => this.write(manager, editorUserId, users, extras));
      return { inserted: users.map((u) => u.id), rejected: [] };
    } catch {
      // Validation ran before the transaction, so this is rare: find the culprit user by user.
      return this.insertOneByOne(editorUserId, users, extras);
    }
  }

  private async insertOneByOne(editorUserId: string, users: ImportedHuman[], extras: ImportBatchExtras): Promise<ImportBatchResult> {
    const result: ImportBatchResult = { inserted: [], rejected: [] };
    for (const user of users) {
      try {
        await this.uow.run((manager) => this.write(manager, editorUserId, [user], extras));
        result.inserted.push(user.id);
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        result.rejected.push({ userId: user.id, message: await this.conflictMessage(user) });
      }
    }
    return result;
  }

  private async conflictMessage(user: ImportedHuman): Promise<string> {
    if ((await this.existingUserIds([user.id])).size > 0) return `a user with id "${user.id}" already exists`;
    if ((await this.removedUserIds([user.id])).size > 0) return `the id "${user.id}" belonged to a removed user and is never given again`;
    return `the userName "${user.userName}" already exists in organization ${user.orgId}`;
  }

  private async write(manager: EntityManager, editorUserId: string, users: ImportedHuman[], extras: ImportBatchExtras): Promise<void> {
    const now = Date.now();
    for (const [orgId, added] of countByOrg(users)) await countAdded(manager, orgId, added);
    await insertValues(
      manager,
      'users',
      USER_COLUMNS,
      users.map((u) => userRow(u, now)),
    );
    await insertValues(manager, 'user_contacts', CONTACT_COLUMNS, users.flatMap(contactRows));
    await this.events.push(manager, ...users.map((u) => addedEvent(u, editorUserId, extras.origin)));
    await extras.alsoWrite?.(manager, users);
  }
}

/**
 * Column order of the rows below (the users table's columns). Booleans are written as
 * 1/0 and timestamps as epoch milliseconds, as the entity's column transformers store them.
 */
const USER_COLUMNS = [
  'id',
  'org_id',
  'type',
  'user_name',
  'user_name_lower',
  'state',
  'given_name',
  'family_name',
  'display_name',
  'nick_name',
  'preferred_language',
  'gender',
  'email',
  'email_lower',
  'email_verified',
  'phone',
  'phone_verified',
  'password_hash',
  'password_change_required',
  'mfa_enrolment_required',
  'failed_password_checks',
  'version',
  'created_at',
  'changed_at',
  'search_text',
] as const;

function userRow(u: ImportedHuman, now: number): unknown[] {
  return [
    u.id,
    u.orgId,
    'human',
    u.userName,
    u.userName.toLowerCase(),
    u.state ?? 'active',
    u.firstName,
    u.lastName,
    u.displayName,
    u.nickName,
    u.preferredLanguage,
    u.gender,
    u.email,
    u.email?.toLowerCase() ?? null,
    u.email !== null && u.emailVerified ? 1 : 0,
    u.phone,
    u.phone !== null && u.phoneVerified ? 1 : 0,
    u.passwordHash,
    u.passwordChangeRequired ? 1 : 0,
    u.mfaEnrolmentRequired ? 1 : 0,
    0,
    1,
    u.createdAt ?? now,
    now,
    searchText({ userName: u.userName, givenName: u.firstName, familyName: u.lastName, displayName: u.displayName, email: u.email ?? undefined }),
  ];
}

function countByOrg(users: ImportedHuman[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const u of users) counts.set(u.orgId, (counts.get(u.orgId) ?? 0) + 1);
  return counts;
}

const CONTACT_COLUMNS = ['user_id', 'org_id', 'kind', 'position', 'value_lower', 'type_lower', 'is_primary'] as const;

/** The primary e-mail (and phone) in `user_contacts`, so SCIM filters on `emails.value` find imported users. */
function contactRows(u: ImportedHuman): unknown[][] {
  const rows: unknown[][] = u.email === null ? [] : [[u.id, u.orgId, 'email', 0, u.email.toLowerCase(), null, 1]];
  if (u.phone !== null) rows.push([u.id, u.orgId, 'phone', 0, u.phone.toLowerCase(), null, 1]);
  return rows;
}

/** Same payload as UsersService.insertHuman writes: never the hash (EventStore refuses secret keys). */
function addedEvent(u: ImportedHuman, editorUserId: string, origin: JsonObject | undefined): NewEvent {
  return {
    type: 'user.human.added',
    aggregateType: 'user',
    aggregateId: u.id,
    resourceOwner: u.orgId,
    editorUserId,
    payload: {
      userName: u.userName,
      firstName: u.firstName,
      lastName: u.lastName,
      displayName: u.displayName,
      preferredLanguage: u.preferredLanguage,
      ...(u.email !== null ? { email: u.email } : {}),
      ...(u.phone !== null ? { phone: u.phone } : {}),
      ...origin,
    },
  };
}
