import { Injectable } from '@nestjs/common';
import { ScimError } from '../errors/scim-error.js';
import { ScimUrls } from '../http/scim-urls.js';
import { toScimUser } from '../users/scim-user.mapper.js';
import { patchUser, readPatchRequest } from '../users/scim-user.patch.js';
import { validateUser } from '../users/scim-user.validator.js';
import { ScimUsersService } from '../users/scim-users.service.js';
import type { BulkOperation, BulkRequest } from './scim-bulk.request.js';
import { runBulk } from './scim-bulk.runner.js';
import type { BulkOperationResult } from './scim-bulk.runner.js';

const USERS_PATH = /^\/Users(?:\/([^/]+))?$/i;

/** A malformed %-escape is a path naming no user (404), not a 500. */
function decodePathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new ScimError(404, `"${segment}" is not a valid path segment`, 'invalidPath', 'notFound');
  }
}

/**
 * POST /Bulk (RFC 7644 §3.7) over Users: each operation is what the single request would do, with
 * the same validation, events and errors; each commits on its own, so an operation's failure leaves
 * the ones before it in place (RFC 7644 §3.7: "not atomic").
 */
@Injectable()
export class ScimBulkService {
  constructor(
    private readonly users: ScimUsersService,
    private readonly urls: ScimUrls,
  ) {}

  run(editorUserId: string, orgId: string, request: BulkRequest): Promise<BulkOperationResult[]> {
    return runBulk(request, (operation) => this.execute(editorUserId, orgId, operation), (path) => this.locate(orgId, path));
  }

  /** The user URL of `/Users/{id}`; a path naming no user has no location. */
  private locate(orgId: string, path: string): string | undefined {
    const id = USERS_PATH.exec(path)?.[1];
    if (id === undefined) return undefined;
    try {
      return this.urls.user(orgId, decodeURIComponent(id));
    } catch {
      return undefined;
    }
  }

  private async execute(editorUserId: string, orgId: string, operation: BulkOperation) {
    const match = USERS_PATH.exec(operation.path);
    const id = match?.[1] === undefined ? undefined : decodePathSegment(match[1]);
    if (!match || (operation.method === 'POST') !== (id === undefined)) {
      throw new ScimError(404, `no ${operation.method} target at "${operation.path}"; expected ${operation.method === 'POST' ? '/Users' : '/Users/{id}'}`, 'invalidPath', 'notFound');
    }
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
}
