/** A small JSON client for the started service, as an API user would call it. */
export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  /** Sent as is (for malformed JSON, bytes that are not UTF-8, compressed bodies and wrong content types). */
  rawBody?: string | Uint8Array;
  headers?: Record<string, string>;
}

export function createClient(baseUrl: string) {
  return async function request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
    let body: string | Uint8Array<ArrayBuffer> | undefined;
    if (options.rawBody !== undefined) body = typeof options.rawBody === 'string' ? options.rawBody : new Uint8Array(options.rawBody);
    else if (options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
    const response = await fetch(new URL(path, baseUrl), { method, headers, body });
    const text = await response.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  };
}

export type ApiClient = ReturnType<typeof createClient>;
