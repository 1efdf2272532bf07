import { request } from 'node:http';
import type { PageResponse } from './login-client.js';

/**
 * A browser reduced to a cookie jar and manual redirects, like LoginClient, but over node:http so that
 * it can send any Host header (fetch always sends the address it connects to): the client of a host
 * header injection.
 */
export class RawHttpClient {
  readonly cookies = new Map<string, string>();

  constructor(
    private readonly serviceUrl: string,
    private readonly headers: Record<string, string>,
  ) {}

  get(path: string, headers: Record<string, string> = {}): Promise<PageResponse> {
    return this.send('GET', path, undefined, headers);
  }

  post(path: string, body: string, contentType: string, headers: Record<string, string> = {}): Promise<PageResponse> {
    return this.send('POST', path, body, { 'content-type': contentType, ...headers });
  }

  postForm(path: string, form: Record<string, string>): Promise<PageResponse> {
    return this.post(path, new URLSearchParams(form).toString(), 'application/x-www-form-urlencoded');
  }

  private send(method: string, path: string, body: string | undefined, headers: Record<string, string>): Promise<PageResponse> {
    const url = new URL(path, this.serviceUrl);
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const all = {
      ...this.headers,
      ...headers,
      ...(cookie ? { cookie } : {}),
      ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}),
    };
    return new Promise((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, path: url.pathname + url.search, method, headers: all }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          for (const line of res.headers['set-cookie'] ?? []) {
            const [pair] = line.split(';');
            const eq = pair.indexOf('=');
            const value = pair.slice(eq + 1).trim();
            if (/expires=Thu, 01 Jan 1970/i.test(line) || value === '') this.cookies.delete(pair.slice(0, eq).trim());
            else this.cookies.set(pair.slice(0, eq).trim(), value);
          }
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(res.headers)) for (const v of [value ?? []].flat()) responseHeaders.append(name, v);
          resolve({ status: res.statusCode ?? 0, headers: responseHeaders, text: Buffer.concat(chunks).toString('utf8'), location: res.headers.location });
        });
      });
      req.on('error', reject);
      req.end(body);
    });
  }
}
