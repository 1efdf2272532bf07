import 'reflect-metadata';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import type { OpenAPIObject } from '@nestjs/swagger';
import type { INestApplication } from '@nestjs/common';
import { AppModule } from './app.module.js';
import type { AppConfig } from './common/config/config.js';
import { DatabaseAvailability } from './common/database/database-availability.js';
import { healthOpenApi } from './common/health/health.openapi.js';
import { serveHealthBeforeExpress } from './common/health/health.listener.js';
import { ApiExceptionFilter } from './common/errors/api-exception.filter.js';
import { createValidationPipe } from './common/errors/validation.pipe.js';
import { ExactIdentifierPipe } from './common/errors/exact-identifier.pipe.js';
import express from 'express';
import { jsonBodyParser, onlyWithBody } from './common/http/body-parsers.js';
import { ApiErrorDto } from './common/http/openapi/api-error.dto.js';
import { DrainingExpressAdapter } from './common/http/draining-express-adapter.js';
import { completeOpenApiDocument } from './common/http/openapi/openapi-document.js';
import { AppLogger } from './common/http/logging.js';
import { compileTrustedProxies, trustProxies } from './common/http/client-address.js';
import { httpMetricsMiddleware } from './common/metrics/http-metrics.js';
import { pinRequestsToPublicOrigin } from './common/http/public-origin.js';
import { consoleRouter } from './console/console.router.js';
import { scimBodyParser, scimResponseType } from './scim/http/scim-body-parser.js';
import { OidcDispatch, currentOidcRequest } from './oidc/provider/extensions/oidc-dispatch.middleware.js';
import { oidcOpenApi } from './oidc/provider/oidc.openapi.js';
import { scimOpenApi } from './scim/openapi/scim.openapi.js';
import { BootstrapService } from './users/bootstrap.service.js';
import { forInstanceOwners, importBodyParser } from './admin/import/import-body-parser.js';
import { spooledJsonBody } from './migrations/api/spooled-body.js';
import { PRINCIPAL_RESOLVER } from './common/auth/principal-resolver.js';
import type { PrincipalResolver } from './common/auth/principal-resolver.js';
import { DataSource } from 'typeorm';
import { SAML_FORM_LIMIT_BYTES } from './saml/protocol/bindings.js';

/** Builds the Nest application for a configuration (the service and the test harness share this). */
export async function createApp(config: AppConfig): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), new DrainingExpressAdapter(), {
    bodyParser: false,
    bufferLogs: true,
  });
  await configureApp(app, config);
  return app;
}

/** Everything that is set on an application rather than declared in a module. */
export async function configureApp(app: NestExpressApplication, config: AppConfig): Promise<void> {
  const logger = app.get(AppLogger);
  app.useLogger(logger);
  app.disable('x-powered-by');
  // No entity tags anywhere Express answers (SCIM, /admin, /management): SCIM does not support them
  // (`etag.supported` false, RFC 7644 §3.14), and Express's default weak ETag of the body (with its 304
  // to If-None-Match) would contradict that. oidc-provider and the login UI answer outside `res.send`.
  app.set('etag', false);
  // Idle connections stay open longer than a load balancer or a client keeps them (Node's own 5 s is shorter than
  // most): whoever closes an idle connection first must be the client, or a request it sends on it at that moment is
  // reset (docs/operations.md, "Behind a load balancer"). Headers must be allowed at least as long.
  const server = app.getHttpServer();
  server.keepAliveTimeout = config.httpKeepAliveTimeoutMs;
  server.headersTimeout = config.httpKeepAliveTimeoutMs + 1000;
  // Every request gets its id, its log line and its metrics, whichever way it is served.
  const observe = bothMiddlewares(logger.requestMiddleware(), httpMetricsMiddleware());
  app.use(observe);
  // OIDC endpoints go straight to oidc-provider before Express and Nest, and the login UI router comes
  // first among the middleware, before the JSON body parser (docs/decisions/oidc-before-express.md).
  // They run in oidc-provider's AsyncLocalStorage: the logger finds their request id there, with no
  // second storage for every promise of a token request to carry.
  logger.findRequestsWith(currentOidcRequest);
  app.get(OidcDispatch).attach(app, bothMiddlewares(logger.requestMiddleware({ ownStorage: false }), httpMetricsMiddleware()));
  // After the OIDC dispatch took the server's request listeners: prepended now, it sees every request first.
  trustProxies(app.getHttpServer(), compileTrustedProxies(config.trustedProxies));
  // The readiness probe before both: nothing of Express, Nest or the dispatch is needed for it.
  serveHealthBeforeExpress(app.getHttpServer(), app.get(DataSource), observe);
  // After the dispatch took over the server's listeners: this one is prepended, so it runs first.
  pinRequestsToPublicOrigin(app.getHttpServer(), config.publicUrl);
  // The operator console's static files (docs/console.md); it calls the API like any other client.
  app.use(consoleRouter());
  app.use('/scim/v2', scimResponseType);
  const parsers = express.Router();
  parsers.use('/scim/v2', ...scimBodyParser());
  // --- Import: 100,000 users in one request need their own, larger limit, for an IAM_OWNER only; mounted
  // before the general parser, which then leaves the already-parsed body alone.
  parsers.use('/admin/v1/import', importBodyParser(app.get<PrincipalResolver>(PRINCIPAL_RESOLVER), config.importBodyLimitBytes));
  // A migration carries a whole export (docs/migrating.md): the import's limit, for an IAM_OWNER only, written to
  // a file that the route reads in parts.
  parsers.use('/admin/v1/migrations', forInstanceOwners(app.get<PrincipalResolver>(PRINCIPAL_RESOLVER), spooledJsonBody(config.importBodyLimitBytes)));
  // --- end Import
  // SAML's HTTP-POST binding (SAML Bindings §3.5): a form with one base64 message and its RelayState.
  parsers.use('/saml/v2', express.urlencoded({ extended: false, limit: SAML_FORM_LIMIT_BYTES, parameterLimit: 10 }));
  // RFC 8935 §2: a pushed SET is the body itself, typed application/secevent+jwt.
  parsers.use('/ssf/v1/receive', express.text({ type: 'application/secevent+jwt', limit: 64 * 1024 }));
  parsers.use(...jsonBodyParser(config.bodyLimitBytes));
  app.use(onlyWithBody(parsers));
  app.useGlobalPipes(new ExactIdentifierPipe(), createValidationPipe());
  app.useGlobalFilters(new ApiExceptionFilter(app.get(DatabaseAvailability)));
  setUpOpenApi(app, config);
  await app.get(BootstrapService).bootstrap();
}

type Middleware = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

function bothMiddlewares(first: Middleware, second: Middleware): Middleware {
  return (req, res, next) => first(req, res, () => second(req, res, next));
}

/**
 * The OpenAPI document at /docs-json and its explorer at /docs: the admin and management API from the
 * controllers' decorators, then the health probe, SCIM and OAuth / OpenID Connect, which Nest does not describe
 * (src/common/http/openapi/openapi-document.ts). The one server is PUBLIC_URL, never the request's Host
 * (SECURITY.md, "Host header injection"). `redocly lint` checks it (test/platform/openapi-lint.test.ts).
 */
function setUpOpenApi(app: NestExpressApplication, config: AppConfig): void {
  // Built at the first request for it, not at start-up: a process that never serves /docs never holds the
  // document (1 MB of heap) nor pays for building it (BENCHMARKS.md, "Performance goals, memory"). Nest keeps it once built.
  SwaggerModule.setup('docs', app, () => openApiDocument(app, config), { jsonDocumentUrl: 'docs-json' });
}

/**
 * The document /docs-json serves, without starting the service: Nest's preview mode registers the modules and
 * controllers but creates no provider (no database is opened, nothing listens, nothing is bootstrapped), and
 * @nestjs/swagger reads only the decorators' metadata. The console's types are generated from it
 * (scripts/generate-console-types.mjs; docs/console.md, "API types").
 */
export async function previewOpenApiDocument(config: AppConfig): Promise<OpenAPIObject> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), new ExpressAdapter(), { preview: true, logger: false });
  try {
    return openApiDocument(app, config);
  } finally {
    await app.close();
  }
}

function openApiDocument(app: INestApplication, config: AppConfig): OpenAPIObject {
  const generated = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Portcullis API')
      .setDescription('Instance administration and management API, SCIM 2.0 provisioning and the OAuth 2.0 / OpenID Connect endpoints.')
      .setVersion('1')
      .setLicense('Apache-2.0', 'https://www.apache.org/licenses/LICENSE-2.0')
      .addServer(config.publicUrl, 'PUBLIC_URL')
      .addBearerAuth({
        type: 'http',
        scheme: 'bearer',
        description:
          'a personal access token, or an access token issued by this service. A DPoP-bound access token (RFC 9449, `token_type` `DPoP`) is refused as a Bearer token: it goes as `Authorization: DPoP <token>` with a `DPoP` proof header (`htu` is PUBLIC_URL and the path, `ath` the token\'s hash, a `nonce` from the `DPoP-Nonce` header of a 401 `use_dpop_nonce`; docs/oauth-profiles.md, "DPoP")',
      })
      .addTag('admin', 'instance administration (`/admin/v1`); errors are `{code, message, details}`')
      .addTag('management', "an organization's projects, users, groups and settings (`/management/v1`); errors are `{code, message, details}`")
      .addTag('auth', 'the caller about itself (`/auth/v1`); errors are `{code, message, details}`')
      .addTag('health', 'readiness probe')
      .build(),
    { extraModels: [ApiErrorDto] },
  );
  return completeOpenApiDocument(generated, [healthOpenApi(), scimOpenApi(), oidcOpenApi()]);
}
