import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  McpServer,
  OAuthError,
  OAuthErrorCode,
  createMcpHandler,
  getOAuthProtectedResourceMetadataUrl,
  oauthMetadataResponse,
  requireBearerAuth,
} from '@modelcontextprotocol/server';
import type { AuthInfo, OAuthMetadata, OAuthTokenVerifier } from '@modelcontextprotocol/server';

/** The API application's credentials, with which the MCP server introspects the tokens it is shown (RFC 7662). */
export interface ResourceCredentials {
  clientId: string;
  clientSecret: string;
}

export interface McpTestServer {
  /** The MCP endpoint: the resource indicator clients send (RFC 8707) and the API application's `resourceUri`. */
  url: string;
  /** What the introspection answered for each token the server was shown, newest last. */
  introspections: Record<string, unknown>[];
  /** Sets the credentials once the API application exists (its `resourceUri` needs this server's port first). */
  protect(credentials: ResourceCredentials, scopes: string[]): void;
  close(): Promise<void>;
}

/**
 * An MCP server built on @modelcontextprotocol/server, as its authors document it: the SDK's per-request handler
 * behind its `requireBearerAuth` gate, tokens checked by introspection at the authorization server with the API
 * application's credentials, and its RFC 9728 protected resource metadata naming that authorization server, which
 * the 401's `WWW-Authenticate: Bearer resource_metadata=…` points to. One tool, `whoami`, answers the user the token
 * was issued to.
 */
export async function startMcpServer(issuer: string): Promise<McpTestServer> {
  const oauthMetadata = (await (await fetch(new URL('/.well-known/oauth-authorization-server', issuer))).json()) as OAuthMetadata;
  const introspections: Record<string, unknown>[] = [];
  let credentials: ResourceCredentials | undefined;
  let scopes: string[] = [];

  const verifier: OAuthTokenVerifier = {
    async verifyAccessToken(token: string): Promise<AuthInfo> {
      if (!credentials || !oauthMetadata.introspection_endpoint) throw new OAuthError(OAuthErrorCode.ServerError, 'not protected yet');
      const basic = Buffer.from(`${encodeURIComponent(credentials.clientId)}:${encodeURIComponent(credentials.clientSecret)}`).toString('base64');
      const res = await fetch(oauthMetadata.introspection_endpoint, {
        method: 'POST',
        headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token }),
      });
      const body = (await res.json()) as Record<string, any>;
      introspections.push(body);
      if (res.status !== 200 || body.active !== true) throw new OAuthError(OAuthErrorCode.InvalidToken, 'the token is not active');
      const audience = [body.aud].flat().filter(Boolean) as string[];
      return {
        token,
        clientId: body.client_id,
        scopes: String(body.scope ?? '')
          .split(' ')
          .filter(Boolean),
        expiresAt: body.exp,
        // The SDK compares this with `expectedResource`: the token must be for this server alone (RFC 8707 §2).
        resource: audience.length === 1 ? new URL(audience[0]) : undefined,
        extra: { sub: body.sub, username: body.username },
      };
    },
  };

  const handler = createMcpHandler(({ authInfo }) => {
    const server = new McpServer({ name: 'portcullis-test-mcp', version: '1.0.0' });
    server.registerTool('whoami', { description: 'The user this agent acts for' }, async () => ({
      content: [{ type: 'text', text: String(authInfo?.extra?.username ?? authInfo?.extra?.sub ?? '') }],
    }));
    return server;
  });

  let url = '';
  const http: Server = createServer((req, res) => {
    void serve(req, res).catch((error: Error) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(error.message);
    });
  });
  const serve = async (req: IncomingMessage, res: ServerResponse) => {
    const request = await toWebRequest(req, url);
    const resourceServerUrl = new URL(url);
    const metadata = oauthMetadataResponse(request, { oauthMetadata, resourceServerUrl, scopesSupported: scopes, resourceName: 'Portcullis test MCP server' });
    if (metadata) return sendWebResponse(res, metadata);
    if (new URL(request.url).pathname !== resourceServerUrl.pathname) return void res.writeHead(404).end();
    const gate = requireBearerAuth({
      verifier,
      expectedResource: resourceServerUrl,
      resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(resourceServerUrl),
    });
    const auth = await gate(request);
    if (auth instanceof Response) return sendWebResponse(res, auth);
    await sendWebResponse(res, await handler.fetch(request, { authInfo: auth }));
  };
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;

  return {
    url,
    introspections,
    protect(given, resourceScopes) {
      credentials = given;
      scopes = resourceScopes;
    },
    close: async () => {
      await handler.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** node:http to the web-standard Request the SDK's handlers take (what `@modelcontextprotocol/node` does). */
async function toWebRequest(req: IncomingMessage, base: string): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  const method = req.method ?? 'GET';
  return new Request(new URL(req.url ?? '/', base), { method, headers, body: method === 'GET' || method === 'HEAD' ? undefined : Buffer.concat(chunks) });
}

async function sendWebResponse(res: ServerResponse, response: Response): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  // Streamed (an SSE answer) chunk by chunk, as it comes.
  const reader = response.body?.getReader();
  for (let chunk = await reader?.read(); chunk && !chunk.done; chunk = await reader?.read()) res.write(chunk.value);
  res.end();
}
