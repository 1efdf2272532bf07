import { Injectable, Logger } from '@nestjs/common';
import { PasswordHasher } from '../../common/crypto/password-hasher.js';
import { UserImportWriter } from '../../users/user-import.writer.js';
import type { ImportedHuman } from '../../users/user-import.writer.js';
import { parseGoDuration } from './go-duration.parser.js';
import type { ImportErrorDto, ImportOrgDto, ImportRequestDto, ImportResponseDto } from './import.dto.js';
import { checkImportUser, ID_PATTERN } from './import-user.validator.js';
import type { ImportCandidate } from './import-user.validator.js';

/** The default `timeout`: five minutes, as hosted deployments of the product this API follows allow. */
const DEFAULT_TIMEOUT = '5m';
/** Users per transaction: large enough for multi-row inserts to pay off, small enough to stop on time. */
const BATCH_USERS = 1000;
/** A plain password costs a bcrypt hash (tens of ms): fewer of them per batch keep the timeout honest. */
const BATCH_PLAIN_PASSWORDS = 32;

/**
 * `POST /admin/v1/import` (docs/product-rules.md, "Import and event search"). Organizations are taken in order: a missing one is created
 * with the given id, an existing one is reported and still receives its users (rule 1). Each user is
 * checked before any write, so a problem of one user is an error entry while the others go on; valid
 * users are written in batches, each user together with its `user.human.added` event. The `timeout`
 * (rule 3) is checked between batches, so the import stops at a user boundary.
 */
@Injectable()
export class ImportService {
  private readonly logger = new Logger(ImportService.name);

  constructor(
    private readonly writer: UserImportWriter,
    private readonly passwords: PasswordHasher,
  ) {}

  async import(editorUserId: string, request: ImportRequestDto): Promise<ImportResponseDto> {
    const timeout = request.timeout ?? DEFAULT_TIMEOUT;
    const run = new ImportRun(Date.now() + parseGoDuration(timeout)!, timeout);
    const defaults = await this.writer.instanceDefaults();
    const orgs = request.dataOrgs.orgs;
    for (let index = 0; index < orgs.length; index++) {
      if (run.timedOut()) {
        run.stop(orgs.slice(index), 0);
        break;
      }
      const stopped = await this.importOrg(editorUserId, orgs[index], index, run, defaults);
      if (stopped) {
        run.stop(orgs.slice(index + 1), stopped);
        break;
      }
    }
    this.logger.log(`import: ${run.imported} users imported, ${run.errors.length} error entries`);
    return run.response();
  }

  /** Imports one organization's users; returns how many valid users were left out by the timeout. */
  private async importOrg(
    editorUserId: string,
    org: ImportOrgDto,
    index: number,
    run: ImportRun,
    defaults: { defaultLanguage: string; passwordMinLength: number },
  ): Promise<number> {
    const items = org.humanUsers ?? [];
    // The body is JSON: orgId can be null or a number, which RegExp.test would read as "null" or "123".
    if (typeof org.orgId !== 'string' || !ID_PATTERN.test(org.orgId)) {
      const what =
        org.orgId === undefined || org.orgId === null || org.orgId === '' ? 'orgId is required' : 'orgId must be 1 to 64 letters, digits or ._@:- characters';
      run.error('org', typeof org.orgId === 'string' ? org.orgId : '', `orgs[${index}]: ${what}; its ${items.length} users were not imported`);
      return 0;
    }
    const orgId = org.orgId;
    // An organization named twice in one request was handled the first time; it is not "already existing".
    const outcome = run.hasOrg(orgId) ? 'created' : await this.writer.ensureOrg(editorUserId, orgId, org.org?.name ?? orgId);
    if (outcome === 'conflict') {
      run.error(
        'org',
        orgId,
        `the organization could not be created: its primary domain is taken by another organization; its ${items.length} users were not imported`,
      );
      return 0;
    }
    // An existing organization is reported, yet the users are still added to the existing organization.
    if (outcome === 'exists') run.error('org', orgId, 'the organization already exists; its users are added to it');
    run.touchOrg(orgId);

    const candidates = await this.unverifiedWhereTaken(orgId, await this.checkUsers(orgId, items, run, defaults.passwordMinLength));
    let next = 0;
    while (next < candidates.length) {
      if (run.timedOut()) return candidates.length - next;
      // better-sqlite3 is synchronous, so without this an import would hold the event loop (and every
      // other request, health checks included) from its first batch to its last.
      await yieldToEventLoop();
      const batch = takeBatch(candidates, next);
      next += batch.length;
      const users = await Promise.all(batch.map((c) => this.toImportedHuman(orgId, c, defaults.defaultLanguage)));
      const result = await this.writer.insertBatch(editorUserId, users);
      run.imported += result.inserted.length;
      run.success(orgId, result.inserted);
      for (const rejected of result.rejected) run.error('user', rejected.userId, rejected.message);
      run.batchesWritten++;
    }
    return 0;
  }

  /** Per-user checks, then duplicates within the import and against the database. */
  private async checkUsers(orgId: string, items: unknown[], run: ImportRun, passwordMinLength: number): Promise<ImportCandidate[]> {
    const checked: ImportCandidate[] = [];
    const namesInOrg = run.userNamesOf(orgId);
    for (const [index, item] of items.entries()) {
      // Checking 100,000 users takes seconds: let health checks and other requests in meanwhile.
      if (index % 2000 === 1999) await yieldToEventLoop();
      const result = checkImportUser(item, passwordMinLength);
      if (!result.ok) {
        run.error('user', result.userId, result.message);
        continue;
      }
      const user = result.user;
      const nameKey = user.userName.toLowerCase();
      if (run.seenUserIds.has(user.userId)) {
        run.error('user', user.userId, `userId "${user.userId}" is repeated in this import`);
      } else if (namesInOrg.has(nameKey)) {
        run.error('user', user.userId, `userName "${user.userName}" is repeated in this import (also user ${namesInOrg.get(nameKey)})`);
      } else {
        checked.push(user);
        namesInOrg.set(nameKey, user.userId);
      }
      run.seenUserIds.add(user.userId);
    }
    const takenIds = await this.writer.existingUserIds(checked.map((u) => u.userId));
    const removedIds = await this.writer.removedUserIds(checked.map((u) => u.userId));
    const takenNames = await this.writer.existingUserNames(
      orgId,
      checked.map((u) => u.userName.toLowerCase()),
    );
    return checked.filter((user) => {
      if (takenIds.has(user.userId)) run.error('user', user.userId, `a user with id "${user.userId}" already exists`);
      else if (removedIds.has(user.userId)) run.error('user', user.userId, `the id "${user.userId}" belonged to a removed user and is never given again`);
      else if (takenNames.has(user.userName.toLowerCase()))
        run.error('user', user.userId, `the userName "${user.userName}" already exists in organization ${orgId}`);
      else return true;
      return false;
    });
  }

  /**
   * An address verified for another user of the organization (stored, or earlier in this import) arrives
   * unverified (docs/product-rules.md, "Verified addresses"): the user and its address are imported, not the trust.
   */
  private async unverifiedWhereTaken(orgId: string, candidates: ImportCandidate[]): Promise<ImportCandidate[]> {
    const taken = await this.writer.verifiedEmails(
      orgId,
      candidates.filter((c) => c.emailVerified).map((c) => c.email.toLowerCase()),
    );
    return candidates.map((c) => {
      const address = c.email.toLowerCase();
      if (!c.emailVerified) return c;
      if (taken.has(address)) return { ...c, emailVerified: false };
      taken.add(address);
      return c;
    });
  }

  private async toImportedHuman(orgId: string, c: ImportCandidate, defaultLanguage: string): Promise<ImportedHuman> {
    const passwordHash = 'hash' in c.password ? c.password.hash : await this.passwords.hashForImport(c.password.plain);
    return {
      id: c.userId,
      orgId,
      userName: c.userName,
      firstName: c.firstName,
      lastName: c.lastName,
      displayName: c.displayName,
      nickName: c.nickName,
      preferredLanguage: c.preferredLanguage ?? defaultLanguage,
      gender: c.gender,
      email: c.email,
      emailVerified: c.emailVerified,
      phone: c.phone,
      phoneVerified: c.phoneVerified,
      passwordHash,
      passwordChangeRequired: c.passwordChangeRequired,
    };
  }
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function takeBatch(candidates: ImportCandidate[], from: number): ImportCandidate[] {
  let plain = 0;
  let end = from;
  while (end < candidates.length && end - from < BATCH_USERS && plain < BATCH_PLAIN_PASSWORDS) {
    if ('plain' in candidates[end].password) plain++;
    end++;
  }
  return candidates.slice(from, end);
}

/** The state of one import request: what succeeded, what did not, and its deadline. */
class ImportRun {
  imported = 0;
  batchesWritten = 0;
  readonly errors: ImportErrorDto[] = [];
  readonly seenUserIds = new Set<string>();
  private readonly successes = new Map<string, string[]>();
  private readonly userNames = new Map<string, Map<string, string>>();

  constructor(
    private readonly deadline: number,
    private readonly timeout: string,
  ) {}

  /** Never before the first batch, so that every import makes progress and a retry converges. */
  timedOut(): boolean {
    return this.batchesWritten > 0 && Date.now() > this.deadline;
  }

  hasOrg(orgId: string): boolean {
    return this.successes.has(orgId);
  }

  touchOrg(orgId: string): void {
    if (!this.successes.has(orgId)) this.successes.set(orgId, []);
  }

  success(orgId: string, userIds: string[]): void {
    const list = this.successes.get(orgId)!;
    for (const id of userIds) list.push(id);
  }

  userNamesOf(orgId: string): Map<string, string> {
    let names = this.userNames.get(orgId);
    if (!names) this.userNames.set(orgId, (names = new Map()));
    return names;
  }

  error(type: ImportErrorDto['type'], id: string, message: string): void {
    this.errors.push({ type, id, message });
  }

  /** Records the timeout: `leftInOrg` valid users of the current organization plus every later one. */
  stop(laterOrgs: ImportOrgDto[], leftInOrg: number): void {
    const left = leftInOrg + laterOrgs.reduce((n, org) => n + (org.humanUsers?.length ?? 0), 0);
    this.error(
      'timeout',
      '',
      `the import ran out of its timeout of ${this.timeout} after ${this.imported} users; ${left} users were not imported ` +
        '(they are neither in success nor in errors): send them again',
    );
  }

  response(): ImportResponseDto {
    return { success: { orgs: [...this.successes].map(([orgId, humanUserIds]) => ({ orgId, humanUserIds })) }, errors: this.errors };
  }
}
