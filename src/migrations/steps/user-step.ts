import { newId } from '../../common/ids.js';
import type { JsonObject } from '../../common/database/columns.js';
import type { MovedHuman, MovingInWriter } from '../../users/moving-in/moving-in.writer.js';
import type { UserImportWriter } from '../../users/user-import.writer.js';
import type { PlannedUser } from '../migration-plan.js';
import type { UnitOfWork } from '../../common/database/unit-of-work.js';
import { DomainError } from '../../common/errors/domain-error.js';
import type { MigratedObjects } from '../migrated-objects.js';
import type { MigrationTally } from '../migration-tally.js';
import { changedHalves, updateUser, userFingerprint } from './user-update.js';
import type { UserUpdateServices } from './user-update.js';

/**
 * Ids become path segments of the management API and SCIM (where `|` is sent as `%7C`), and the users column holds 64
 * characters. `|` is allowed because Auth0's ids are `<connection>|<id>` and kept as they are (docs/migrating.md).
 */
const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._@:|-]{0,63}$/;
/** Users per transaction, as the import writes them. */
const BATCH = 1000;

export interface RunContext {
  editorUserId: string;
  orgId: string;
  migrationId: string;
  dryRun: boolean;
  keepSubjects: boolean;
  /** New client secrets instead of the source's (returned once). */
  rotateSecrets: boolean;
  defaultLanguage: string;
  origin: JsonObject;
}

/**
 * The users of a plan, a batch at a time (docs/migrating.md, "Running it again"): a user brought in by an earlier
 * run is unchanged when its source is; a new one keeps the source's id (so `sub` stays) unless the id, its userName
 * in the organization, or a removed user's id stands in the way — each such user is one listed failure.
 */
export class UserStep {
  /** Source id → the user's id here, for the groups: existing users, and those created (or, in a dry run, that would be). */
  readonly targets = new Map<string, string>();

  constructor(
    private readonly writer: MovingInWriter,
    private readonly lookups: UserImportWriter,
    private readonly objects: MigratedObjects,
    private readonly tally: MigrationTally,
    private readonly run: RunContext,
    private readonly updates: UserUpdateServices & { uow: UnitOfWork },
  ) {}

  async apply(users: PlannedUser[]): Promise<void> {
    const seenNames = new Map<string, string>();
    const seenIds = new Set<string>();
    const unique = users.filter((user) => {
      const name = user.userName.toLowerCase();
      if (seenIds.has(user.sourceId)) this.tally.fail({ kind: 'user', sourceId: user.sourceId, message: 'the id is repeated in the document' });
      else if (seenNames.has(name))
        this.tally.fail({ kind: 'user', sourceId: user.sourceId, message: `the username is repeated in the document (also user ${seenNames.get(name)})` });
      else {
        seenIds.add(user.sourceId);
        seenNames.set(name, user.sourceId);
        return true;
      }
      return false;
    });
    for (let i = 0; i < unique.length; i += BATCH) {
      await yieldToEventLoop();
      await this.batch(unique.slice(i, i + BATCH));
    }
  }

  private async batch(users: PlannedUser[]): Promise<void> {
    const mapped = await this.objects.find(
      'user',
      users.map((u) => u.sourceId),
    );
    const stillThere = await this.lookups.existingUserIds([...mapped.values()].map((m) => m.targetId));
    const fresh: { user: PlannedUser; targetId: string; fingerprint: string }[] = [];
    for (const user of users) {
      const fingerprint = userFingerprint(user);
      const earlier = mapped.get(user.sourceId);
      if (earlier && stillThere.has(earlier.targetId)) {
        this.targets.set(user.sourceId, earlier.targetId);
        if (earlier.fingerprint === fingerprint) this.tally.count('user', 'unchanged');
        else await this.update(user, earlier.targetId, changedHalves(earlier.fingerprint, fingerprint, user), fingerprint);
        continue;
      }
      const targetId = earlier?.targetId ?? (this.run.keepSubjects ? user.sourceId : newId());
      if (!ID_PATTERN.test(targetId)) {
        this.tally.fail({
          kind: 'user',
          sourceId: user.sourceId,
          message: 'the id must be 1 to 64 letters, digits or ._@:|- characters to be kept (or migrate with keepSubjects: false)',
        });
        continue;
      }
      fresh.push({ user, targetId, fingerprint });
    }
    const ids = fresh.map((f) => f.targetId);
    const [takenIds, removedIds, takenNames, verified] = await Promise.all([
      this.lookups.existingUserIds(ids),
      this.lookups.removedUserIds(ids),
      this.lookups.existingUserNames(
        this.run.orgId,
        fresh.map((f) => f.user.userName.toLowerCase()),
      ),
      this.lookups.verifiedEmails(
        this.run.orgId,
        fresh.flatMap((f) => (f.user.email && f.user.emailVerified ? [f.user.email.toLowerCase()] : [])),
      ),
    ]);
    const writable = fresh.filter(({ user, targetId }) => {
      let message: string | undefined;
      if (takenIds.has(targetId)) message = `a user with the id ${targetId} already exists`;
      else if (removedIds.has(targetId)) message = `the id ${targetId} belonged to a removed user and is never given again`;
      else if (takenNames.has(user.userName.toLowerCase())) message = `the userName "${user.userName}" is taken by another user of the organization`;
      if (message) this.tally.fail({ kind: 'user', sourceId: user.sourceId, message });
      return message === undefined;
    });
    if (this.run.dryRun) {
      for (const { user, targetId } of writable) this.targets.set(user.sourceId, targetId);
      this.tally.count('user', 'created', writable.length);
      return;
    }
    const humans = writable.map(({ user, targetId }) => this.human(user, targetId, verified));
    const byTarget = new Map(writable.map((w) => [w.targetId, w]));
    const result = await this.writer.insertHumans(this.run.editorUserId, this.run.origin, humans, (manager, written) =>
      this.objects.remember(
        manager,
        'user',
        written.map((h) => ({ sourceId: byTarget.get(h.id)!.user.sourceId, targetId: h.id, fingerprint: byTarget.get(h.id)!.fingerprint })),
      ),
    );
    for (const id of result.inserted) this.targets.set(byTarget.get(id)!.user.sourceId, id);
    this.tally.count('user', 'created', result.inserted.length);
    for (const rejected of result.rejected)
      this.tally.fail({ kind: 'user', sourceId: byTarget.get(rejected.userId)!.user.sourceId, message: rejected.message });
  }

  /** A user changed at the source since it moved in: what changed is changed here (docs/migrating.md, "Running it again"). */
  private async update(user: PlannedUser, userId: string, halves: { profile: boolean; secrets: boolean }, fingerprint: string): Promise<void> {
    const { editorUserId, orgId, dryRun } = this.run;
    try {
      if (!dryRun) {
        await updateUser(this.updates, this.updates.uow, editorUserId, orgId, userId, user, halves);
        await this.updates.uow.run((manager) => this.objects.remember(manager, 'user', [{ sourceId: user.sourceId, targetId: userId, fingerprint }]));
      }
      this.tally.count('user', 'updated');
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      this.tally.fail({ kind: 'user', sourceId: user.sourceId, message: `changed at the source, and not updated: ${error.message}` });
    }
  }

  /** An address another user of the organization holds verified arrives unverified (docs/product-rules.md, "Verified addresses"). */
  private human(user: PlannedUser, id: string, verifiedElsewhere: Set<string>): MovedHuman {
    const address = user.email?.toLowerCase();
    const emailVerified = user.emailVerified && address !== undefined && !verifiedElsewhere.has(address);
    if (emailVerified) verifiedElsewhere.add(address!);
    return {
      id,
      orgId: this.run.orgId,
      userName: user.userName,
      firstName: user.firstName,
      lastName: user.lastName,
      displayName: user.displayName ?? (`${user.firstName} ${user.lastName}`.trim() || user.userName),
      nickName: user.nickName ?? null,
      preferredLanguage: user.preferredLanguage ?? this.run.defaultLanguage,
      gender: user.gender ?? null,
      email: user.email,
      emailVerified,
      phone: user.phone,
      phoneVerified: user.phoneVerified === true,
      passwordHash: user.passwordHash,
      passwordChangeRequired: user.passwordChangeRequired,
      mfaEnrolmentRequired: user.mfaEnrolmentRequired === true,
      state: user.enabled ? 'active' : 'inactive',
      createdAt: user.createdAt ?? undefined,
      totpSecret: user.totpSecret,
    };
  }
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
