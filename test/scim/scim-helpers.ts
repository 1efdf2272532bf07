import assert from 'node:assert/strict';
import { createCaller, createOrg } from '../support/fixtures.js';
import type { ApiResponse, RequestOptions } from '../support/http.js';
import type { TestService } from '../support/service.js';

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
export const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';
export const DETAIL_SCHEMA = 'urn:ietf:params:scim:api:portcullis:messages:2.0:ErrorDetail';

export interface ScimTenant {
  orgId: string;
  token: string;
  callerId: string;
  base: string;
  /** Calls `/scim/v2/{orgId}{path}` with the tenant's token and SCIM media types. */
  scim<T = any>(method: string, path: string, options?: RequestOptions): Promise<ApiResponse<T>>;
}

/** An organization with an ORG_USER_MANAGER machine caller: how an operator connects Okta or Entra ID. */
export async function scimTenant(svc: TestService): Promise<ScimTenant> {
  const org = await createOrg(svc);
  const caller = await createCaller(svc, org.id, { org: ['ORG_USER_MANAGER'] });
  const base = `/scim/v2/${org.id}`;
  return {
    orgId: org.id,
    token: caller.token,
    callerId: caller.userId,
    base,
    scim: (method, path, options = {}) =>
      svc.api(method, `${base}${path}`, {
        token: caller.token,
        ...options,
        headers: { accept: 'application/scim+json', 'content-type': 'application/scim+json', ...options.headers },
      }),
  };
}

export function userBody(userName: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    schemas: [USER_SCHEMA],
    userName,
    name: { givenName: 'Barbara', familyName: 'Jensen' },
    emails: [{ value: userName.includes('@') ? userName : `${userName}@example.com`, type: 'work', primary: true }],
    ...extra,
  };
}

export async function createUser(t: ScimTenant, body: Record<string, unknown>): Promise<any> {
  const res = await t.scim('POST', '/Users', { body });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

/** Asserts an RFC 7644 §3.12 error envelope with the vendor detail. */
export function assertScimError(res: ApiResponse, status: number, scimType?: string): void {
  assert.equal(res.status, status, res.text);
  assert.match(res.headers.get('content-type') ?? '', /application\/scim\+json/);
  assert.deepEqual(res.body.schemas, [ERROR_SCHEMA, DETAIL_SCHEMA]);
  assert.equal(res.body.status, String(status));
  assert.equal(typeof res.body.detail, 'string');
  if (scimType !== undefined) assert.equal(res.body.scimType, scimType);
  assert.equal(typeof res.body[DETAIL_SCHEMA].id, 'string');
}
