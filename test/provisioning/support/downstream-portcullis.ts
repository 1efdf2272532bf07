import { createCaller, createOrg } from '../../support/fixtures.js';
import type { ApiResponse } from '../../support/http.js';
import { processSetup, remoteService } from '../../faults/faults.helpers.js';

/**
 * A second Portcullis as its own process (one in-process service per test file), with an organization and a caller
 * that may manage its users: a real SCIM target (docs/provisioning.md) at `baseUrl`, bearer `token`.
 */
export interface DownstreamPortcullis {
  baseUrl: string;
  token: string;
  /** A SCIM request to the organization's API, as the caller. */
  scim(method: string, path: string, body?: unknown): Promise<ApiResponse>;
  close(): Promise<void>;
}

export async function startDownstreamPortcullis(): Promise<DownstreamPortcullis> {
  const setup = await processSetup();
  try {
    const service = remoteService((await setup.spawn()).url, setup.adminToken());
    const orgId = (await createOrg(service)).id;
    const token = (await createCaller(service, orgId, { org: ['ORG_USER_MANAGER'] })).token;
    const baseUrl = `${service.url}/scim/v2/${orgId}`;
    return { baseUrl, token, scim: (method, path, body) => service.api(method, `/scim/v2/${orgId}${path}`, { token, body }), close: () => setup.cleanup() };
  } catch (error) {
    await setup.cleanup();
    throw error;
  }
}
