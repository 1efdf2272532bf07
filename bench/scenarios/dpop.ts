/**
 * DPoP (RFC 9449): DPoP-bound client credentials against plain ones, on one service (WORKERS=1), in
 * alternating rounds (median of three in the full run). What a bound token costs the server: the proof's
 * signature check, the nonce, and the insert that makes its `jti` single-use (oidc/provider/dpop.ts). Then the
 * admin API with a bound token against the same call with a Bearer token: the resource side of the same checks.
 *
 * Every request needs a proof of its own (a `jti` is accepted once) carrying the server's current nonce, and
 * autocannon's `setupRequest` is synchronous, so proofs are signed here with node:crypto (ES256 in the JWS
 * encoding, RFC 7515 §A.3) rather than jose's asynchronous SignJWT; the client's signing is the load
 * generator's CPU, not the server's.
 */
import { createHash, generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { adminToken, call } from '../lib/api.js';
import type { Context } from '../lib/context.js';
import { load } from '../lib/load.js';
import { freePort, startService } from '../lib/processes.js';
import { alternating } from './oidc.js';
import { FORM, basic } from './oidc-setup.js';

const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A client's DPoP key, and proofs signed with it. */
class ProofSigner {
  private readonly privateKey: KeyObject;
  private readonly header: string;

  constructor() {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.privateKey = privateKey;
    this.header = b64({ alg: 'ES256', typ: 'dpop+jwt', jwk: publicKey.export({ format: 'jwk' }) });
  }

  proof(htm: string, htu: string, nonce: string, token?: string): string {
    const claims = {
      htm,
      htu,
      jti: randomUUID(),
      iat: Math.floor(Date.now() / 1000),
      nonce,
      ...(token ? { ath: createHash('sha256').update(token).digest('base64url') } : {}),
    };
    const input = `${this.header}.${b64(claims)}`;
    return `${input}.${sign('sha256', Buffer.from(input), { key: this.privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
  }
}

export async function runDpop(ctx: Context): Promise<void> {
  const timing = { seconds: ctx.options.seconds, warmup: ctx.options.warmup };
  const rounds = ctx.options.quick ? 1 : 3;
  const store = await ctx.newStore();
  try {
    const service = await startService(store, 1, await freePort());
    try {
      const admin = adminToken(store.dataDir);
      const org = await call(service.url, admin, 'POST', '/admin/v1/orgs', { name: `dpop-bench-${Date.now()}` });
      const user = await call(service.url, admin, 'POST', `/management/v1/orgs/${org.id}/users/machine`, {
        userName: 'dpop-bench',
        name: 'bench',
        accessTokenType: 'opaque',
      });
      await call(service.url, admin, 'PUT', `/admin/v1/members/${user.userId}`, { roles: ['IAM_OWNER'] });
      const secret = await call(service.url, admin, 'POST', `/management/v1/orgs/${org.id}/users/${user.userId}/secret`, {});
      const machine = { id: secret.clientId as string, secret: secret.clientSecret as string };
      const signer = new ProofSigner();
      // The service's own URLs are its PUBLIC_URL (bench/lib/processes.ts starts it so).
      const tokenUrl = `${service.url}/oauth/v2/token`;
      const orgsUrl = `${service.url}/admin/v1/orgs`;
      const tokenRequest = (dpop?: string) =>
        fetch(tokenUrl, {
          method: 'POST',
          headers: { ...FORM, authorization: basic(machine), ...(dpop ? { dpop } : {}) },
          body: 'grant_type=client_credentials',
        });
      // A nonce is accepted for some three minutes (common/auth/dpop-nonce.ts): fetched afresh for each measurement.
      const freshNonce = async () => (await tokenRequest(signer.proof('POST', tokenUrl, 'none'))).headers.get('dpop-nonce') ?? '';
      const bound = await checkedToken(tokenRequest(signer.proof('POST', tokenUrl, await freshNonce())), 'DPoP');
      const plain = await checkedToken(tokenRequest(), 'Bearer');

      const measure = (requests: () => Promise<Record<string, unknown>[]>) => async () => {
        const { socketErrors: _, ...figures } = await load(service.url, service.pid, timing, await requests());
        return figures;
      };
      const plainGrant = measure(async () => [
        { method: 'POST', path: '/oauth/v2/token', headers: { ...FORM, authorization: basic(machine) }, body: 'grant_type=client_credentials' },
      ]);
      const dpopGrant = measure(async () => {
        const nonce = await freshNonce();
        return [
          {
            method: 'POST',
            path: '/oauth/v2/token',
            body: 'grant_type=client_credentials',
            setupRequest: (req: Record<string, unknown>) => ({
              ...req,
              headers: { ...FORM, authorization: basic(machine), dpop: signer.proof('POST', tokenUrl, nonce) },
            }),
          },
        ];
      });
      const bearerApi = measure(async () => [{ method: 'GET', path: '/admin/v1/orgs', headers: { authorization: `Bearer ${plain}` } }]);
      const dpopApi = measure(async () => {
        const nonce = await freshNonce();
        return [
          {
            method: 'GET',
            path: '/admin/v1/orgs',
            setupRequest: (req: Record<string, unknown>) => ({
              ...req,
              headers: { authorization: `DPoP ${bound}`, dpop: signer.proof('GET', orgsUrl, nonce, bound) },
            }),
          },
        ];
      });
      const [cc, ccDpop, api, apiDpop] = await alternating(rounds, [plainGrant, dpopGrant, bearerApi, dpopApi]);
      const server = { kind: 'portcullis' as const, server: 'Portcullis WORKERS=1', workers: 1, unit: 'req/s' as const };
      ctx.record({ scenario: 'dpop.client-credentials-plain', label: 'client credentials (Bearer)', ...server, ...cc });
      ctx.record({ scenario: 'dpop.client-credentials', label: 'client credentials (DPoP-bound)', ...server, ...ccDpop });
      ctx.record({ scenario: 'dpop.admin-api-bearer', label: 'GET /admin/v1/orgs (Bearer)', ...server, ...api });
      ctx.record({ scenario: 'dpop.admin-api', label: 'GET /admin/v1/orgs (DPoP proof)', ...server, ...apiDpop });
      console.error(
        `  DPoP-bound client credentials: ${(ccDpop.rate / cc.rate).toFixed(2)}× the plain rate; admin API with a proof: ${(apiDpop.rate / api.rate).toFixed(2)}× the Bearer rate`,
      );
    } finally {
      await service.stop();
    }
  } finally {
    await store.drop();
  }
}

/** The token of a client-credentials answer, failing the run unless it is of the expected type. */
async function checkedToken(answer: Promise<Response>, type: string): Promise<string> {
  const res = await answer;
  const body = (await res.json()) as { access_token?: string; token_type?: string };
  if (!body.access_token || body.token_type !== type) throw new Error(`client credentials answered ${res.status} ${JSON.stringify(body)}, not a ${type} token`);
  return body.access_token;
}
