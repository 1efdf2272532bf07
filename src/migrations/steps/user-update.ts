import { createHash } from 'node:crypto';
import type { UnitOfWork } from '../../common/database/unit-of-work.js';
import type { UserAccess } from '../../users/acting/user-access.service.js';
import type { UserEditService } from '../../users/user-edit.service.js';
import type { UserLifecycleService } from '../../users/user-lifecycle.service.js';
import type { PlannedUser } from '../migration-plan.js';
import { fingerprintOf } from '../migrated-objects.js';

/** The users domain's services a changed user is updated with. */
export interface UserUpdateServices {
  edits: UserEditService;
  lifecycle: UserLifecycleService;
  access: UserAccess;
}

/**
 * A user's fingerprint in two halves (docs/migrating.md, "Running it again"): what the profile says, and what its
 * credentials say (as hashes of the hash and seed). A second run changes only the half that changed at the source,
 * so a password set here after the move stays unless the source's changed too. 31 + 1 + 32 hex digits fill the
 * id map's 64-character column.
 */
export function userFingerprint(user: PlannedUser): string {
  const { passwordHash, totpSecret, passwordChangeRequired, mfaEnrolmentRequired, ...profile } = user;
  // An owed factor joins the credentials' half only when owed, so the fingerprints of earlier runs stay as they were.
  const owed = mfaEnrolmentRequired === true ? [true] : [];
  const secrets = createHash('sha256')
    .update(JSON.stringify([passwordHash, totpSecret, passwordChangeRequired, ...owed]))
    .digest('hex');
  return `${fingerprintOf(profile).slice(0, 31)}.${secrets.slice(0, 32)}`;
}

/** What differs between an earlier run's fingerprint and the source's now; a fingerprint of an earlier version (one hash of everything) names no half. */
export function changedHalves(earlier: string, now: string, user: PlannedUser): { profile: boolean; secrets: boolean } {
  if (!earlier.includes('.')) {
    const same = earlier === fingerprintOf(user);
    return { profile: !same, secrets: false };
  }
  const [p0, s0] = earlier.split('.');
  const [p1, s1] = now.split('.');
  return { profile: p0 !== p1, secrets: s0 !== s1 };
}

/** Brings one moved-in user to what the source says now, each change its usual event in one transaction. */
export async function updateUser(
  services: UserUpdateServices,
  uow: UnitOfWork,
  editorUserId: string,
  orgId: string,
  userId: string,
  user: PlannedUser,
  halves: { profile: boolean; secrets: boolean },
): Promise<void> {
  if (halves.profile) {
    await services.edits.change(editorUserId, orgId, userId, {
      userName: user.userName,
      profile: {
        firstName: user.firstName,
        lastName: user.lastName,
        ...(user.displayName !== undefined ? { displayName: user.displayName } : {}),
        ...(user.preferredLanguage !== null ? { preferredLanguage: user.preferredLanguage } : {}),
      },
      ...(user.email !== null ? { email: { email: user.email, isEmailVerified: user.emailVerified } } : {}),
      phone: user.phone === null ? null : { phone: user.phone, isPhoneVerified: user.phoneVerified === true },
    });
    const current = await uow.run((manager) => services.access.actOn(manager, editorUserId, orgId, userId));
    if (user.enabled && current.state === 'inactive') await services.lifecycle.reactivate(editorUserId, orgId, userId);
    if (!user.enabled && current.state === 'active') await services.lifecycle.deactivate(editorUserId, orgId, userId);
  }
  if (halves.secrets) {
    await uow.run(async (manager) => {
      const current = await services.access.actOn(manager, editorUserId, orgId, userId);
      // A required action added at the source (UPDATE_PASSWORD, CONFIGURE_TOTP) changes this half as a new hash does.
      const { passwordHash: hash, passwordChangeRequired: changeRequired } = user;
      if (hash !== null && (hash !== current.passwordHash || changeRequired !== current.passwordChangeRequired))
        await services.lifecycle.setPasswordHashIn(manager, editorUserId, current, hash, changeRequired);
      if (user.mfaEnrolmentRequired === true && !current.mfaEnrolmentRequired)
        await services.lifecycle.requireFactorEnrolmentIn(manager, editorUserId, current);
    });
  }
}
