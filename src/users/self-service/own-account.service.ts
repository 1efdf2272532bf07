import { Injectable } from '@nestjs/common';
import { isEmail } from 'class-validator';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { isUniqueViolation } from '../../common/database/unique-violation.js';
import { DomainError } from '../../common/errors/domain-error.js';
import type { ErrorDetail } from '../../common/errors/domain-error.js';
import { UserAccess } from '../acting/user-access.service.js';
import { verifiedByAnother, verifiedElsewhereError } from '../queries/verified-emails.js';
import { tooLong } from '../../common/text/column-bounds.js';
import { LANGUAGE_TAG } from '../rules/language-tag.js';
import { STRING_BOUNDS } from '../rules/string-bounds.js';
import type { StringBound } from '../rules/string-bounds.js';
import { UserEditService } from '../user-edit.service.js';
import { AccountLinksService } from './account-links.service.js';

/** The names and language a person edits on the account page: first and last name required; an empty display name or language clears it. */
export interface OwnProfile {
  firstName: string;
  lastName: string;
  displayName: string;
  preferredLanguage: string;
}

/**
 * What a person changes about itself on the account page (docs/account.md), each with the same domain functions, checks
 * and events as an administrator's change, the person being its own editor (SECURITY.md's acting rule holds trivially: a user holds
 * every role it holds). A new e-mail address starts unverified, gets a verification link, and the old address a
 * notice, all in the change's transaction.
 */
@Injectable()
export class OwnAccountService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly access: UserAccess,
    private readonly edits: UserEditService,
    private readonly links: AccountLinksService,
  ) {}

  async changeProfile(userId: string, orgId: string, profile: OwnProfile): Promise<void> {
    const details = [
      ...(['firstName', 'lastName'] as const).filter((f) => !profile[f].trim()).map((field) => ({ field, message: `${field} must not be empty` })),
      ...bounded('givenName', 'firstName', profile.firstName),
      ...bounded('familyName', 'lastName', profile.lastName),
      ...bounded('userDisplayName', 'displayName', profile.displayName),
      ...bounded('preferredLanguage', 'preferredLanguage', profile.preferredLanguage),
      ...(profile.preferredLanguage && !LANGUAGE_TAG.test(profile.preferredLanguage)
        ? [{ field: 'preferredLanguage', message: 'preferredLanguage must be a language tag such as en or de-CH' }]
        : []),
    ];
    if (details.length > 0) throw DomainError.invalid(details.map((d) => d.message).join('; '), details);
    await this.edits.change(userId, orgId, userId, { profile });
  }

  /** A new primary address (unverified, with a link to verify it; a notice to the old one); the same address changes nothing. */
  async changeEmail(userId: string, orgId: string, email: string): Promise<void> {
    const details = isEmail(email) ? bounded('email', 'email', email) : [{ field: 'email', message: 'email must be an e-mail address' }];
    if (details.length > 0) throw DomainError.invalid(details.map((d) => d.message).join('; '), details);
    try {
      await this.uow.run(async (manager) => {
        const user = await this.access.actOn(manager, userId, orgId, userId);
        const old = user.email;
        if (old === email) return;
        // Refused at once rather than at the link: the link could never verify it (docs/account.md, "Sections").
        if (await verifiedByAnother(manager, orgId, email, userId)) throw verifiedElsewhereError();
        const changed = await this.edits.changeIn(manager, userId, user, { email: { email, isEmailVerified: false } });
        await this.links.sendIn(manager, userId, changed, 'email_verification', { email });
        if (old) await this.links.noticeEmailChangedIn(manager, changed, old);
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw DomainError.alreadyExists('this e-mail address belongs to another user');
      throw error;
    }
  }
}

/** Bounds counted in characters (code points), as the management API's `@Bounded` and the columns count them. */
function bounded(bound: StringBound, field: string, value: string): ErrorDetail[] {
  return tooLong(value, STRING_BOUNDS[bound]) ? [{ field, message: `${field} must be at most ${STRING_BOUNDS[bound]} characters` }] : [];
}
