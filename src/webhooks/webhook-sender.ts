import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { guardedLookup, hostOf, isPublicAddress, NonPublicTargetError } from '../common/net/outbound-address.js';

/** No answer in 10 s is a failed attempt (docs/webhooks.md, "A delivery"). */
export const DELIVERY_TIMEOUT_MS = 10_000;

/** How one attempt ended: an HTTP status, or an error before any status (refused, timed out, not resolved). */
export type AttemptResult = { ok: boolean; status?: number; error?: string };

/**
 * Sends one webhook attempt. Redirects are not followed (a 3xx is a failed attempt: following one would
 * let a target send the service to an address it was never checked for). Connections are kept alive
 * between the attempts of one subscription: deliveries go out one at a time, in order.
 */
export class WebhookSender {
  private readonly http: HttpAgent;
  private readonly https: HttpsAgent;

  constructor(private readonly allowPrivateNetworks: boolean) {
    this.http = new HttpAgent({ keepAlive: true, maxSockets: 64 });
    this.https = new HttpsAgent({ keepAlive: true, maxSockets: 64 });
  }

  send(url: string, headers: Record<string, string>, body: string, signal?: AbortSignal): Promise<AttemptResult> {
    const target = new URL(url);
    const host = hostOf(target);
    if (!this.allowPrivateNetworks && isIP(host) && !isPublicAddress(host)) {
      return Promise.resolve({ ok: false, error: new NonPublicTargetError(host, [host]).message });
    }
    const secure = target.protocol === 'https:';
    return new Promise((resolve) => {
      const done = (result: AttemptResult) => {
        clearTimeout(timer);
        resolve(result);
      };
      const req = (secure ? httpsRequest : httpRequest)(
        target,
        {
          method: 'POST',
          agent: secure ? this.https : this.http,
          ...(this.allowPrivateNetworks ? {} : { lookup: guardedLookup as never }),
          signal,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': 'Portcullis-Webhooks', ...headers },
        },
        (res) => {
          // The answer's body is not kept; reading it to the end frees the connection for the next attempt.
          res.on('data', () => undefined);
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            done({ ok: status >= 200 && status < 300, status });
          });
          res.on('error', (error) => done({ ok: false, status: res.statusCode, error: error.message }));
        },
      );
      const timer = setTimeout(() => req.destroy(new Error(`no answer within ${DELIVERY_TIMEOUT_MS / 1000} s`)), DELIVERY_TIMEOUT_MS);
      req.on('error', (error) => done({ ok: false, error: error.message }));
      req.end(body);
    });
  }

  close(): void {
    this.http.destroy();
    this.https.destroy();
  }
}
