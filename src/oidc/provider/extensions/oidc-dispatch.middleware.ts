import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '../../../common/config/config.token.js';
import type { AppConfig } from '../../../common/config/config.js';
import { AUTHORIZATION_SERVER_METADATA_PATH, pathInsertedMetadataPath } from '../authorization-server-metadata.js';
import Provider from 'oidc-provider';
import type { NextFunction, Request, Response } from 'express';
import { LoginUiRouter } from '../../interactions/login-ui.router.js';
import { serveBeforeExpress } from '../../../common/http/before-express.js';
import { errorMessage, noteFailure } from '../../../common/http/failure-causes.js';
import type { RoutedRequest } from '../../../common/metrics/http-metrics.js';
import { writeOAuthError } from '../oauth-errors.js';
import { OIDC_ROUTES, isLoginUiPath, isProviderPath, providerRouteTemplate } from '../oidc.routes.js';
import { bodyRewritesFor } from './body-rewrites.js';
import { redirectPostToGet } from './post-to-get.js';
import { rewriteFormBody } from './request-body-replay.js';
import { refuseStaleDpopProof } from '../dpop.js';
import { ProviderHolder } from '../provider.holder.js';

/**
 * Sends OIDC paths straight to oidc-provider, before Express, Nest's pipeline and the JSON body
 * parser: oidc-provider parses its own (form-encoded) bodies and writes its own OAuth errors, and the
 * token and introspection endpoints skip every layer they do not need. The login UI is an Express
 * router (forms, cookies), mounted as the first middleware.
 */
@Injectable()
export class OidcDispatch {
  constructor(
    private readonly holder: ProviderHolder,
    private readonly loginUi: LoginUiRouter,
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'publicUrl'>,
  ) {}

  /**
   * Puts the provider in front of the server's other request listeners (Express). `accessLog` writes
   * the same access-log line, X-Request-Id and request-scoped log lines as for the API.
   */
  attach(
    app: { getHttpServer(): Server; use(handler: RequestHandler): unknown },
    accessLog: (req: IncomingMessage, res: ServerResponse, next: () => void) => void,
  ): void {
    const pathInserted = pathInsertedMetadataPath(this.config.publicUrl);
    serveBeforeExpress(app.getHttpServer(), (req, res) => {
      // RFC 8414 §3.1: an issuer with a path has its metadata at the path-inserted URL; oidc-provider answers the plain one.
      if (pathInserted !== undefined && pathOf(req) === pathInserted)
        req.url = `${AUTHORIZATION_SERVER_METADATA_PATH}${(req.url ?? '').slice(pathInserted.length)}`;
      const path = pathOf(req);
      if (!isProviderPath(path)) return false;
      (req as RoutedRequest).routeTemplate = providerRouteTemplate(path);
      accessLog(req, res, () => this.dispatch(req, res));
      return true;
    });
    const ui = this.loginUi.router();
    app.use((req, res, next) => (isLoginUiPath(pathOf(req)) ? void ui(req, res, next) : next()));
  }

  /** Hands an OIDC request to the provider, after the rewrites some endpoints need. */
  private dispatch(req: IncomingMessage, res: ServerResponse): void {
    const path = pathOf(req);
    // Reading or rewriting the body failed (the client went away, or a bug): never silently.
    const fail = (error: unknown) => {
      // The request's own log line carries the cause (one line per failed request).
      noteFailure(res, { cause: `oidc request failed before the provider: ${errorMessage(error)}`, err: error });
      writeOAuthError(res, 500, 'server_error');
    };
    if (refuseStaleDpopProof(req, res, path)) return;
    if (req.method === 'POST' && (path === OIDC_ROUTES.authorization || path === OIDC_ROUTES.end_session)) return redirectPostToGet(req, res, path);
    const rewrites = bodyRewritesFor(req, path);
    if (rewrites.length === 0) return this.holder.handle(req, res);
    rewriteFormBody(req, rewrites).then(() => this.holder.handle(req, res), fail);
  }
}

type RequestHandler = (req: Request, res: Response, next: NextFunction) => void;

/** The Node request oidc-provider is handling in this async context (its AsyncLocalStorage, `Provider.ctx`). */
export function currentOidcRequest(): IncomingMessage | undefined {
  return Provider.ctx?.req;
}

function pathOf(req: IncomingMessage): string {
  return (req.url ?? '/').split('?')[0];
}
