import { Injectable, Logger } from '@nestjs/common';
import { Attribute, Change, EqualityFilter, AndFilter, FilterParser, InvalidCredentialsError } from 'ldapts';
import type { Client } from 'ldapts';
import { DomainError, ErrorCode } from '../common/errors/domain-error.js';
import { PasswordKeepers } from '../users/password-keepers.js';
import type { PasswordKeeper } from '../users/password-keepers.js';
import { UnitOfWork } from '../common/database/unit-of-work.js';
import { ExternalPasswords } from '../login/external-passwords.js';
import type { ExternalPasswordAnswer, ExternalPasswordCheck } from '../login/external-passwords.js';
import { directoryById, linkOfUser } from './directories.queries.js';
import { DirectoriesService } from './directories.service.js';
import type { DirectoryTarget } from './directories.service.js';
import { DirectoryUnreachable, serviceConnection } from './directory-connection.js';
import { PasswordPolicyControl, PasswordPolicyError } from './password-policy-control.js';

/**
 * Sign-in by bind (docs/directories.md, "Sign-in"): a directory user's password is never stored; it is checked by
 * binding as the person's entry, found afresh by its stable id with the service account (so a rename or a move since
 * the last sync does not matter). The login name never reaches the directory: Portcullis finds the user, the
 * directory only sees the stable id, in a filter built by the library (RFC 4515 escaping).
 */
@Injectable()
export class DirectoryPasswords implements ExternalPasswordCheck, PasswordKeeper {
  private readonly logger = new Logger(DirectoryPasswords.name);

  constructor(
    private readonly uow: UnitOfWork,
    private readonly directories: DirectoriesService,
    external: ExternalPasswords,
    keepers: PasswordKeepers,
  ) {
    external.register(this);
    keepers.register(this);
  }

  /** The organization's directories that check passwords by bind, by name. */
  async doorsOf(orgId: string): Promise<string[]> {
    return (await this.directories.list(orgId)).filter((directory) => directory.passwordCheck === 'bind').map((directory) => directory.name);
  }

  async keeps(userId: string): Promise<{ name: string; writeBack: boolean } | undefined> {
    const link = await linkOfUser(this.uow.manager, userId);
    const row = link && (await directoryById(this.uow.manager, link.directoryId));
    if (!row) return undefined;
    const settings = JSON.parse(row.settings) as { passwordCheck: string; writeBack?: boolean };
    return settings.passwordCheck === 'bind' ? { name: row.name, writeBack: settings.writeBack === true } : undefined;
  }

  /**
   * Writes a password to the directory (docs/directories.md, "Write-back"). A reset goes through the service account:
   * AD replaces `unicodePwd` ([MS-ADTS] 3.1.1.3.1.5, over TLS only), OpenLDAP takes a Password Modify naming the
   * entry (RFC 3062). A change (`current` given) is made as the person, so the directory applies its own rules for
   * users (history, minimum age) and does not mark the new password must-change again: AD's delete-old, add-new
   * modify, which the right to change one's own password allows whoever knows the old one, even expired; OpenLDAP's
   * Password Modify on a connection bound as the person.
   */
  async write(userId: string, password: string, current?: string): Promise<void> {
    const link = await linkOfUser(this.uow.manager, userId);
    const row = link && (await directoryById(this.uow.manager, link.directoryId));
    if (!link || !row) throw DomainError.notFound('user');
    const target = await this.directories.targetOf(row);
    let client: Client | undefined;
    try {
      client = await serviceConnection(target.settings, target.bindPassword, target.allow);
      const dn = await this.entryDn(client, target, link.externalId);
      if (!dn) throw new DomainError(ErrorCode.FailedPrecondition, `the directory "${row.name}" no longer has this user`);
      if (target.type === 'active-directory') {
        const value = (text: string) => new Attribute({ type: 'unicodePwd', values: [Buffer.from(`"${text}"`, 'utf16le')] });
        const changes =
          current === undefined
            ? [new Change({ operation: 'replace', modification: value(password) })]
            : [new Change({ operation: 'delete', modification: value(current) }), new Change({ operation: 'add', modification: value(password) })];
        await client.modify(dn, changes);
      } else if (current === undefined) {
        await client.exop(PASSWORD_MODIFY, passwordModifyValue({ userIdentity: dn, newPassword: password }));
      } else {
        await this.changeOnOpenLdap(client, target, dn, current, password);
      }
    } catch (error) {
      if (error instanceof DomainError) throw error;
      if (error instanceof DirectoryUnreachable) throw new DomainError(ErrorCode.Unavailable, `the directory "${row.name}" is unreachable: ${error.message}`);
      // The directory's own reason (AD: a constraint violation naming the rule; ppolicy: the quality check), never the password.
      throw new DomainError(ErrorCode.FailedPrecondition, `the directory "${row.name}" refused the password: ${(error as Error).message}`);
    } finally {
      await client?.unbind().catch(() => undefined);
    }
  }

  /**
   * A change as the person on OpenLDAP: Password Modify (RFC 3062) on a connection bound as the person, so ppolicy
   * applies its rules for users (history, quality, minimum age) and clears pwdReset. An expired password with no grace
   * login left cannot bind (ppolicy answers passwordExpired, to the right password only): then the service account
   * sends the Password Modify with the old password, which slapd checks; lacking `manage` on the password, the service
   * account is no password administrator to ppolicy, whose rules for users apply alike and which marks nothing
   * must-change (docs/directories.md, "Write-back").
   */
  private async changeOnOpenLdap(client: Client, target: DirectoryTarget, dn: string, current: string, password: string): Promise<void> {
    const policy = new PasswordPolicyControl();
    try {
      await client.bind(dn, current, policy);
    } catch (error) {
      if (!(error instanceof InvalidCredentialsError) || policy.error !== PasswordPolicyError.passwordExpired) throw error;
      await client.bind(target.settings.bindDn, target.bindPassword);
      await client.exop(PASSWORD_MODIFY, passwordModifyValue({ userIdentity: dn, oldPassword: current, newPassword: password }));
      return;
    }
    await client.exop(PASSWORD_MODIFY, passwordModifyValue({ oldPassword: current, newPassword: password }));
  }

  private async entryDn(client: Client, target: DirectoryTarget, externalId: string): Promise<string | undefined> {
    const { searchEntries } = await client.search(target.settings.usersDn, {
      scope: 'sub',
      filter: entryFilter(target, externalId),
      attributes: ['1.1'],
      sizeLimit: 2,
    });
    return searchEntries.length === 1 ? searchEntries[0].dn : undefined;
  }

  async owns(userId: string): Promise<boolean> {
    const link = await linkOfUser(this.uow.manager, userId);
    if (!link) return false;
    const row = await directoryById(this.uow.manager, link.directoryId);
    return !!row && (JSON.parse(row.settings) as { passwordCheck: string }).passwordCheck === 'bind';
  }

  async check(userId: string, password: string): Promise<ExternalPasswordAnswer> {
    // RFC 4513 §5.1.2: a simple bind with an empty password is an unauthenticated bind, which servers accept.
    if (password === '') return 'mismatch';
    const link = await linkOfUser(this.uow.manager, userId);
    const row = link && (await directoryById(this.uow.manager, link.directoryId));
    if (!link || !row) return 'mismatch';
    const target = await this.directories.targetOf(row);
    let client: Awaited<ReturnType<typeof serviceConnection>> | undefined;
    try {
      client = await serviceConnection(target.settings, target.bindPassword, target.allow);
      const dn = await this.entryDn(client, target, link.externalId);
      if (!dn) return 'mismatch';
      const policy = target.type === 'ldap' ? new PasswordPolicyControl() : undefined;
      try {
        await client.bind(dn, password, policy);
        // ppolicy lets in, but not to sign in: a password someone else set, with pwdMustChange (changeAfterReset), or
        // an expired one on a grace login (draft-behera-ldap-password-policy-11 §6.2); the person changes it first.
        return policy && (policy.error === PasswordPolicyError.changeAfterReset || policy.graceAuthNsRemaining !== undefined) ? 'expired' : 'match';
      } catch (error) {
        // Why a right password was refused, answered to it alone: AD's diagnostic, 532 expired, 773 must change
        // ([MS-ADTS] 3.1.1.3.1.5.3); ppolicy's passwordExpired (pwdMaxAge passed, no grace login left).
        if (error instanceof InvalidCredentialsError)
          return policy?.error === PasswordPolicyError.passwordExpired || (target.type === 'active-directory' && /\bdata (532|773)\b/.test(error.message))
            ? 'expired'
            : 'mismatch';
        throw error;
      }
    } catch (error) {
      this.logger.warn(`directory ${row.id}: password check not made: ${error instanceof DirectoryUnreachable ? error.message : String(error)}`);
      return 'unreachable';
    } finally {
      await client?.unbind().catch(() => undefined);
    }
  }
}

/** The user filter and the stable id: `entryUUID` as text, AD's `objectGUID` as its 16 bytes ([MS-DTYP] 2.3.4.2). */
function entryFilter(target: DirectoryTarget, externalId: string) {
  const attribute = target.settings.attributes.externalId;
  const value = attribute.toLowerCase() === 'objectguid' ? guidBytes(externalId) : externalId;
  return new AndFilter({ filters: [FilterParser.parseString(target.settings.userFilter), new EqualityFilter({ attribute, value })] });
}

function guidBytes(text: string): Buffer {
  const hex = text.replace(/-/g, '');
  const part = (start: number, end: number) => Buffer.from(hex.slice(start, end), 'hex');
  return Buffer.concat([part(0, 8).reverse(), part(8, 12).reverse(), part(12, 16).reverse(), part(16, 32)]);
}

/** The Password Modify extended operation (RFC 3062). */
const PASSWORD_MODIFY = '1.3.6.1.4.1.4203.1.11.1';

/** PasswdModifyRequestValue (RFC 3062 §2): a SEQUENCE of [0] userIdentity, [1] oldPasswd, [2] newPasswd, each optional. */
export function passwordModifyValue(fields: { userIdentity?: string; oldPassword?: string; newPassword: string }): Buffer {
  const parts = [
    [0x80, fields.userIdentity],
    [0x81, fields.oldPassword],
    [0x82, fields.newPassword],
  ] as const;
  const body = Buffer.concat(parts.filter(([, v]) => v !== undefined).map(([tag, v]) => ber(tag, Buffer.from(v!, 'utf8'))));
  return ber(0x30, body);
}

function ber(tag: number, content: Buffer): Buffer {
  const n = content.length;
  const length = n < 0x80 ? Buffer.from([n]) : n < 0x100 ? Buffer.from([0x81, n]) : Buffer.from([0x82, n >> 8, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), length, content]);
}
