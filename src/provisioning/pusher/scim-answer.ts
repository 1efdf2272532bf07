/**
 * How a target's answer to one request is taken (docs/provisioning.md, "How it is pushed"): success, or what to do next. 400 and 422 fail the
 * object at once (the target will not take it as it is); 401 and 403 are the whole target's credentials; 429 waits
 * as `Retry-After` says (RFC 6585 §4, RFC 9110 §10.2.3); anything else — 5xx, a redirect (never followed), an answer
 * that is not the JSON asked for, no answer within the timeout — is retried with back-off.
 */
export type Answer =
  | { kind: 'ok'; status: number; body: Record<string, unknown> | undefined }
  | { kind: 'not_found'; status: 404 }
  | { kind: 'conflict'; status: 409 }
  | { kind: 'invalid'; status: number; error: string }
  | { kind: 'auth'; status: number; error: string }
  | { kind: 'rate_limited'; status: 429; retryAfterMs: number | undefined; error: string }
  | { kind: 'retry'; status?: number; error: string };

export async function answerOf(res: Response, expectBody: boolean): Promise<Answer> {
  const status = res.status;
  if (status >= 200 && status < 300) {
    if (!expectBody || status === 204) return { kind: 'ok', status, body: undefined };
    const body = (await res.json().catch(() => undefined)) as unknown;
    if (!body || typeof body !== 'object' || Array.isArray(body)) return { kind: 'retry', status, error: `answered ${status} without a JSON object` };
    return { kind: 'ok', status, body: body as Record<string, unknown> };
  }
  if (status === 404) return { kind: 'not_found', status };
  if (status === 409) return { kind: 'conflict', status };
  const detail = await detailOf(res);
  if (status === 400 || status === 422) return { kind: 'invalid', status, error: `answered ${status}${detail}` };
  if (status === 401 || status === 403) return { kind: 'auth', status, error: `refused the credentials (${status})${detail}` };
  if (status === 429) return { kind: 'rate_limited', status, retryAfterMs: retryAfterMs(res.headers.get('retry-after')), error: `answered 429${detail}` };
  return { kind: 'retry', status, error: `answered ${status}${detail}` };
}

/** A failure before any answer: refused, not resolved, timed out, too large. */
export function noAnswer(error: unknown): Extract<Answer, { kind: 'retry' }> {
  return { kind: 'retry', error: error instanceof Error ? error.message : String(error) };
}

/** `Retry-After`: seconds, or an HTTP date (RFC 9110 §10.2.3). */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

async function detailOf(res: Response): Promise<string> {
  const text = await res.text().catch(() => '');
  try {
    const detail = (JSON.parse(text) as { detail?: unknown }).detail;
    return typeof detail === 'string' ? `: ${detail.slice(0, 200)}` : '';
  } catch {
    return '';
  }
}
