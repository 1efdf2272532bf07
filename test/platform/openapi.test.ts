import assert from 'node:assert/strict';
import { request } from 'node:http';
import { before, describe, it } from 'node:test';
import { previewOpenApiDocument } from '../../src/app.factory.js';
import { useService } from '../support/fixtures.js';
import { beforeExpressRoutes, declaredRoutes } from '../support/routes.js';

type Operation = {
  summary?: string;
  description?: string;
  security?: Record<string, string[]>[];
  responses: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }>;
  requestBody?: { content: Record<string, { schema: { properties?: Record<string, { enum?: string[] }> } }> };
  'x-portcullis-access'?: { public: true } | { role: string; organizationParameter?: string };
};
type Document = {
  servers: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, { required?: string[] }>; securitySchemes: Record<string, { type: string; scheme?: string }> };
};

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
const OAUTH = /^\/(\.well-known|oauth|oidc)\//;

function operations(doc: Document): { path: string; method: string; op: Operation }[] {
  return Object.entries(doc.paths).flatMap(([path, item]) => METHODS.filter((m) => item[m]).map((method) => ({ path, method, op: item[method] })));
}

/** `/scim/v2/:orgId/Users/:id` → `/scim/v2/{orgId}/Users/{id}`. */
const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

describe('OpenAPI document: truthful to the routes it describes', () => {
  const svc = useService();
  let doc: Document;
  before(async () => {
    const res = await svc.api('GET', '/docs-json');
    assert.equal(res.status, 200);
    doc = res.body;
  });

  it('names PUBLIC_URL as its server, whatever Host the request carried', async () => {
    assert.deepEqual(
      doc.servers.map((s) => s.url),
      [svc.config.publicUrl],
    );
    const forged = await new Promise<Document>((resolve, reject) => {
      const port = new URL(svc.url).port;
      request({ host: '127.0.0.1', port, path: '/docs-json', headers: { host: 'attacker.example', 'x-forwarded-host': 'attacker.example' } }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve(JSON.parse(text) as Document));
      })
        .on('error', reject)
        .end();
    });
    assert.deepEqual(forged.servers, doc.servers);
  });

  it('describes every route of the controllers (admin, management, SCIM) and the health probe, and no other', () => {
    // `@All` handlers answer 405/404 for what the others do not serve; they are no operations.
    const routes = [...declaredRoutes(svc).filter((r) => r.method !== 'ALL'), ...beforeExpressRoutes()];
    // The Shared Signals transmitter's metadata sits beside the OAuth discovery documents, checked with them below.
    const declared = routes
      .map((r) => `${r.method} ${openApiPath(r.path)}`)
      .filter((r) => !OAUTH.test(r.split(' ')[1]))
      .sort();
    const documented = operations(doc)
      .filter((o) => !OAUTH.test(o.path))
      .map((o) => `${o.method.toUpperCase()} ${o.path}`)
      .sort();
    assert.deepEqual(documented, declared);
    for (const route of routes) {
      const op = doc.paths[openApiPath(route.path)][route.method.toLowerCase()];
      const where = `${route.method} ${route.path}`;
      if (!route.policy || route.policy.public) {
        assert.deepEqual(op.security, [], `${where} is public`);
        continue;
      }
      assert.deepEqual(op.security, [{ bearer: [] }], where);
      if (route.policy.scope === 'caller') {
        assert.ok(op.description?.startsWith('**Required role:** none'), `${where} says it needs no role: ${op.description}`);
        assert.ok(op.responses['401']?.content, `${where} declares 401 with its body`);
        continue;
      }
      const scope = route.policy.scope === 'org' ? `on the organization \`{${route.policy.orgParam}}\`` : 'on the instance';
      assert.ok(op.description?.startsWith(`**Required role:** \`${route.policy.role}\` ${scope}`), `${where} names its role: ${op.description}`);
      for (const status of ['401', '403']) assert.ok(op.responses[status]?.content, `${where} declares ${status} with its body`);
      if (route.policy.scope === 'org') assert.ok(op.responses['404'], `${where} declares the 404 of an organization out of reach`);
    }
  });

  it("is, built without a database or a server, the very document the console's API types are generated from", async () => {
    // scripts/generate-console-types.mjs builds it this way at build time (docs/console.md, "API types").
    const preview = await previewOpenApiDocument(svc.config);
    assert.deepEqual(JSON.parse(JSON.stringify(preview)), doc);
  });

  it('describes the OAuth / OpenID Connect endpoints of the live discovery document, under the same paths', async () => {
    const discovery = await svc.api('GET', '/.well-known/openid-configuration');
    assert.equal(discovery.status, 200);
    const endpoints = Object.entries(discovery.body as Record<string, unknown>)
      .filter(([key, value]) => (key.endsWith('_endpoint') || key === 'jwks_uri') && typeof value === 'string')
      .map(([, url]) => {
        assert.ok((url as string).startsWith(`${svc.config.publicUrl}/`), String(url));
        return (url as string).slice(svc.config.publicUrl.length);
      });
    const documented = Object.keys(doc.paths)
      .filter((p) => OAUTH.test(p))
      .sort();
    // The registration endpoints are published only while an organization allows registrations (docs/agents.md).
    const registration = ['/oauth/v2/register', '/oauth/v2/register/{clientId}'].filter((p) => !endpoints.includes(p));
    assert.deepEqual(
      documented,
      [...endpoints, ...registration, '/.well-known/openid-configuration', '/.well-known/oauth-authorization-server', '/.well-known/ssf-configuration'].sort(),
    );

    // What the document offers is what the provider advertises.
    const token = doc.paths['/oauth/v2/token'].post;
    const grants = token.requestBody!.content['application/x-www-form-urlencoded'].schema.properties!.grant_type.enum!;
    for (const grant of grants) assert.ok(discovery.body.grant_types_supported.includes(grant), `grant ${grant} is advertised`);
    assert.deepEqual(doc.components.securitySchemes.clientBasic, { ...doc.components.securitySchemes.clientBasic, type: 'http', scheme: 'basic' });
    for (const [path, key] of [
      ['/oauth/v2/token', 'token_endpoint_auth_methods_supported'],
      ['/oauth/v2/introspect', 'introspection_endpoint_auth_methods_supported'],
      ['/oauth/v2/revoke', 'revocation_endpoint_auth_methods_supported'],
    ]) {
      assert.ok(discovery.body[key].includes('client_secret_basic'), `${key} has client_secret_basic`);
      assert.deepEqual(doc.paths[path].post.security, [{ clientBasic: [] }, {}], path);
    }
    assert.deepEqual(doc.paths['/oidc/v1/userinfo'].get.security, [{ bearer: [] }]);
  });

  it('gives every operation a summary, a success response (or its redirect) and its client errors', () => {
    const redirectOnly = new Set(['post /oauth/v2/authorize', 'post /oidc/v1/end_session', 'get /saml/v2/{orgId}/init']);
    const noClientError = new Set([
      'get /healthz',
      'get /.well-known/openid-configuration',
      'get /.well-known/oauth-authorization-server',
      'get /.well-known/ssf-configuration',
      'get /oauth/v2/keys',
    ]);
    for (const { path, method, op } of operations(doc)) {
      const where = `${method} ${path}`;
      assert.ok(op.summary, `${where} has a summary`);
      const statuses = Object.keys(op.responses);
      // The exceptions redocly.yaml makes for the linter's operation-2xx-response and operation-4xx-response rules.
      if (!redirectOnly.has(where))
        assert.ok(
          statuses.some((s) => s.startsWith('2')),
          `${where} declares a 2XX`,
        );
      else
        assert.deepEqual(
          statuses.filter((s) => s.startsWith('2')),
          [],
          `${where} only redirects`,
        );
      if (!noClientError.has(where))
        assert.ok(
          statuses.some((s) => s.startsWith('4')),
          `${where} declares a 4XX`,
        );
    }
  });

  it('declares the admin API error body that the service really answers with', async () => {
    const res = await svc.api('GET', '/admin/v1/orgs');
    assert.equal(res.status, 401);
    const schema = doc.components.schemas.ApiErrorDto;
    assert.deepEqual(Object.keys(res.body).sort(), [...schema.required!].sort());
    const orgs = doc.paths['/admin/v1/orgs'].get;
    assert.equal(orgs.responses['401'].content!['application/json'].schema!.$ref, '#/components/schemas/ApiErrorDto');
    // Errors the route declares itself, without a type, get the same body.
    const factors = doc.paths['/management/v1/orgs/{orgId}/users/{userId}/factors'].get;
    assert.equal(factors.responses['404'].content!['application/json'].schema!.$ref, '#/components/schemas/ApiErrorDto');
  });
});
