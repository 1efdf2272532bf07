import { Injectable } from '@nestjs/common';
import type { JsonObject } from '../../common/database/columns.js';
import { ScimError } from '../errors/scim-error.js';
import { groupChangesOf } from '../groups/scim-group.patch.js';
import { validateGroup } from '../groups/scim-group.validator.js';
import { ScimGroupsService } from '../groups/scim-groups.service.js';
import { ScimUrls } from '../http/scim-urls.js';
import { toScimUser } from '../users/scim-user.mapper.js';
import { patchUser, readPatchRequest } from '../users/scim-user.patch.js';
import { validateUser } from '../users/scim-user.validator.js';
import { ScimUsersService } from '../users/scim-users.service.js';
import type { BulkOperation, BulkRequest } from './scim-bulk.request.js';
import { runBulk } from './scim-bulk.runner.js';
import type { BulkOperationResult } from './scim-bulk.runner.js';

/** `/Users`, `/Users/{id}`, `/Groups`, `/Groups/{id}`. */
const PATH = /^\/(Users|Groups)(?:\/([^/]+))?$/i;

type Outcome = { status: number; id?: string; location?: string; version?: string };

/** A malformed %-escape is a path naming no user (404), not a 500. */
function decodePathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new ScimError(404, `"${segment}" is not a valid path segment`, 'invalidPath', 'notFound');
  }
}

/**
 * POST /Bulk (RFC 7644 §3.7) over Users and Groups: each operation is what the single request would do, with
 * the same validation, events and errors; each commits on its own, so an operation's failure leaves
 * the ones before it in place (RFC 7644 §3.7: "not atomic").
 */
@Injectable()
export class ScimBulkService {
  constructor(
    private readonly users: ScimUsersService,
    private readonly groups: ScimGroupsService,
    private readonly urls: ScimUrls,
  ) {}

  run(editorUserId: string, orgId: string, request: BulkRequest): Promise<BulkOperationResult[]> {
    return runBulk(
      request,
      (operation) => this.execute(editorUserId, orgId, operation),
      (path) => this.locate(orgId, path),
    );
  }

  /** The URL of `/Users/{id}` or `/Groups/{id}`; a path naming no resource has no location. */
  private locate(orgId: string, path: string): string | undefined {
    const [, resource, id] = PATH.exec(path) ?? [];
    if (id === undefined) return undefined;
    try {
      return resource.toLowerCase() === 'users' ? this.urls.user(orgId, decodeURIComponent(id)) : this.urls.group(orgId, decodeURIComponent(id));
    } catch {
      return undefined;
    }
  }

  private execute(editorUserId: string, orgId: string, operation: BulkOperation): Promise<Outcome> {
    const match = PATH.exec(operation.path);
    const id = match?.[2] === undefined ? undefined : decodePathSegment(match[2]);
    if (!match || (operation.method === 'POST') !== (id === undefined)) {
      throw new ScimError(
        404,
        `no ${operation.method} target at "${operation.path}"; expected ${operation.method === 'POST' ? '/Users or /Groups' : '/Users/{id} or /Groups/{id}'}`,
        'invalidPath',
        'notFound',
      );
    }
    return match[1].toLowerCase() === 'users' ? this.user(editorUserId, orgId, operation, id) : this.group(editorUserId, orgId, operation, id);
  }

  private async user(editorUserId: string, orgId: string, operation: BulkOperation, id: string | undefined): Promise<Outcome> {
    const done = (status: number, user: Parameters<typeof toScimUser>[0]) => ({
      status,
      id: user.id,
      location: this.urls.user(orgId, user.id),
      version: `W/"${user.version}"`,
    });
    switch (operation.method) {
      case 'POST':
        return done(201, await this.users.create(editorUserId, orgId, validateUser(operation.data)));
      case 'PUT':
        return done(200, await this.users.replace(editorUserId, orgId, id!, validateUser(operation.data)));
      case 'PATCH': {
        const operations = readPatchRequest(operation.data);
        const current = toScimUser(await this.users.get(orgId, id!), this.urls.base(orgId), { stored: true });
        return done(204, await this.users.replace(editorUserId, orgId, id!, patchUser(current, operations)));
      }
      case 'DELETE':
        await this.users.remove(editorUserId, orgId, id!);
        return { status: 204, location: this.urls.user(orgId, id!) };
    }
  }

  /** Group operations; members may name users created earlier in the request (`bulkId:` references, resolved before). */
  private async group(editorUserId: string, orgId: string, operation: BulkOperation, id: string | undefined): Promise<Outcome> {
    const done = (status: number, group: JsonObject) => ({
      status,
      id: String(group.id),
      location: this.urls.group(orgId, String(group.id)),
      version: String((group.meta as JsonObject).version),
    });
    switch (operation.method) {
      case 'POST':
        return done(201, await this.groups.create(editorUserId, orgId, validateGroup(operation.data)));
      case 'PUT':
        return done(200, await this.groups.replace(editorUserId, orgId, id!, validateGroup(operation.data)));
      case 'PATCH':
        await this.groups.edit(editorUserId, orgId, id!, groupChangesOf(readPatchRequest(operation.data)));
        return done(204, await this.groups.get(orgId, id!, WITHOUT_MEMBERS));
      case 'DELETE':
        await this.groups.remove(editorUserId, orgId, id!);
        return { status: 204, location: this.urls.group(orgId, id!) };
    }
  }
}

const WITHOUT_MEMBERS = { attributes: undefined, excluded: [['members']] };
