import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { LookupAddress } from 'node:dns';
import { guardedLookup, hostOf, isPublicAddress, lookupVia, NonPublicTargetError } from './outbound-address.js';

/** What a fetch the service makes on its own initiative may carry (openid-client's customFetch passes these). */
export interface OutboundRequest {
  method: string;
  headers: Record<string, string>;
  body?: string | URLSearchParams | Uint8Array | null;
  signal?: AbortSignal;
  /**
   * The caller does not read a successful answer's body: a 2xx body is drained unbuffered, whatever its size (an
   * error's body is still read, under the cap). A SCIM target may answer a PATCH with the whole group it changed.
   */
  discardSuccessBody?: boolean;
}

export interface OutboundFetchOptions {
  allowPrivateNetworks: boolean;
  /** No answer, or no whole body, within this time: the request fails. */
  timeoutMs: number;
  /** A longer body fails the request (an upstream cannot make the service buffer without end). */
  maxBodyBytes: number;
  /** Where host names are resolved instead of the system's resolver (checked as guardedLookup checks). */
  resolve?: (host: string) => Promise<LookupAddress[]>;
}

/**
 * A `fetch` for requests to hosts an organization configured (federation metadata, tokens, user info): the
 * addresses are checked as webhooks' are (outbound-address.ts; the socket connects to the address that was
 * checked), redirects are not followed, and the time and the size of the answer are bounded.
 */
export function outboundFetch(options: OutboundFetchOptions): (url: string, init: OutboundRequest) => Promise<Response> {
  return (url, init) => {
    const target = new URL(url);
    const host = hostOf(target);
    if (!options.allowPrivateNetworks && isIP(host) && !isPublicAddress(host)) return Promise.reject(new NonPublicTargetError(host, [host]));
    const body =
      init.body == null
        ? undefined
        : typeof init.body === 'string'
          ? init.body
          : init.body instanceof URLSearchParams
            ? init.body.toString()
            : Buffer.from(init.body);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<Response>((resolve, reject) => {
      const req = send(
        target,
        {
          method: init.method,
          headers: { ...init.headers, ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }) },
          ...(options.resolve
            ? { lookup: lookupVia(options.resolve, options.allowPrivateNetworks) as never }
            : options.allowPrivateNetworks
              ? {}
              : { lookup: guardedLookup as never }),
          signal: init.signal,
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          const discard = init.discardSuccessBody === true && (res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 300;
          res.on('data', (chunk: Buffer) => {
            if (discard) return;
            size += chunk.length;
            if (size > options.maxBodyBytes) abort(new Error(`the answer of ${target.host} is larger than ${options.maxBodyBytes} bytes`));
            else chunks.push(chunk);
          });
          res.on('end', () => {
            clearTimeout(timer);
            const headers = new Headers();
            for (const [name, value] of Object.entries(res.headers)) {
              for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, one);
            }
            const status = res.statusCode ?? 502;
            // Response refuses a body for these statuses (Fetch standard, "null body status").
            const nullBody = status === 204 || status === 205 || status === 304;
            resolve(new Response(nullBody ? null : Buffer.concat(chunks), { status, statusText: res.statusMessage, headers }));
          });
          res.on('error', (error) => fail(error));
        },
      );
      const fail = (error: Error) => {
        clearTimeout(timer);
        reject(error);
      };
      // The request fails with `error`, and its socket is closed without one: once an answer has begun, an error given
      // to destroy() reaches a TLS socket no listener waits on, and would end the process.
      const abort = (error: Error) => {
        fail(error);
        req.destroy();
      };
      const timer = setTimeout(() => abort(new Error(`${target.host} did not answer within ${options.timeoutMs / 1000} s`)), options.timeoutMs);
      req.on('error', fail);
      req.end(body);
    });
  };
}
