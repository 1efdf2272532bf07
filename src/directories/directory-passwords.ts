import { Injectable, Logger } from '@nestjs/common';
import { EqualityFilter, AndFilter, FilterParser, InvalidCredentialsError } from 'ldapts';
import { UnitOfWork } from '../common/database/unit-of-work.js';
import { ExternalPasswords } from '../login/external-passwords.js';
import type { ExternalPasswordAnswer, ExternalPasswordCheck } from '../login/external-passwords.js';
import { directoryById, linkOfUser } from './directories.queries.js';
import { DirectoriesService } from './directories.service.js';
import type { DirectoryTarget } from './directories.service.js';
import { DirectoryUnreachable, serviceConnection } from './directory-connection.js';

/**
 * Sign-in by bind (docs/directories.md, "Sign-in"): a directory user's password is never stored; it is checked by
 * binding as the person's entry, found afresh by its stable id with the service account (so a rename or a move since
 * the last sync does not matter). The login name never reaches the directory: Portcullis finds the user, the
 * directory only sees the stable id, in a filter built by the library (RFC 4515 escaping).
 */
@Injectable()
export class DirectoryPasswords implements ExternalPasswordCheck {
  private readonly logger = new Logger(DirectoryPasswords.name);

  constructor(
    private readonly uow: UnitOfWork,
    private readonly directories: DirectoriesService,
    external: ExternalPasswords,
  ) {
    external.register(this);
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
      const { searchEntries } = await client.search(target.settings.usersDn, {
        scope: 'sub',
        filter: entryFilter(target, link.externalId),
        attributes: ['1.1'],
        sizeLimit: 2,
      });
      if (searchEntries.length !== 1) return 'mismatch';
      try {
        await client.bind(searchEntries[0].dn, password);
        return 'match';
      } catch (error) {
        if (error instanceof InvalidCredentialsError) return 'mismatch';
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
