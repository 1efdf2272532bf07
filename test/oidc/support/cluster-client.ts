import { request } from 'node:http';

export interface MachineCredentials {
  clientId: string;
  clientSecret: string;
}

/** GET or POST over a new connection, so node:cluster spreads the requests over every worker. */
export function onNewConnection(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init.method ?? 'GET', agent: false, headers: init.headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

/** A client credentials access token, over a new connection. */
export async function clientCredentialsToken(baseUrl: string, machine: MachineCredentials): Promise<string> {
  const body = 'grant_type=client_credentials';
  const res = await onNewConnection(`${baseUrl}/oauth/v2/token`, {
    method: 'POST',
    body,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'content-length': String(body.length),
      authorization: `Basic ${Buffer.from(`${machine.clientId}:${machine.clientSecret}`).toString('base64')}`,
    },
  });
  if (res.status !== 200) throw new Error(res.text);
  return (JSON.parse(res.text) as { access_token: string }).access_token;
}

/** The published JWKS, over a new connection. */
export async function publishedKeys(baseUrl: string): Promise<{ keys: { kid: string; alg: string }[] }> {
  return JSON.parse((await onNewConnection(`${baseUrl}/oauth/v2/keys`)).text) as { keys: { kid: string; alg: string }[] };
}
