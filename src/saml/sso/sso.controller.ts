import { randomBytes } from 'node:crypto';
import { Controller, Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiBadRequestResponse, ApiBody, ApiConsumes, ApiOkResponse, ApiOperation, ApiProduces, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../../common/auth/authenticated.decorator.js';
import { XmlRefused } from '../../common/xml/saml-xml.js';
import { contentSecurityPolicy, LOGIN_PAGE_HEADERS } from '../../login/login-page.headers.js';
import { errorPage, loggedOutPage } from '../../login/login.views.js';
import { messages } from '../../login/messages.js';
import { chooseLocale } from '../../texts/locales.js';
import { fromPost, fromRedirect } from '../protocol/bindings.js';
import type { MessageName, ReceivedMessage } from '../protocol/bindings.js';
import { SingleLogoutService } from './single-logout.service.js';
import { SamlSsoService } from './sso.service.js';
import type { SsoOutcome } from './sso.service.js';
import { autoPostPage } from './sso.views.js';

/**
 * The browser-facing SAML endpoints of an organization's IdP (docs/saml.md, "Single sign-on"): single sign-on by
 * HTTP-Redirect and HTTP-POST, the hidden client's return, IdP-initiated sign-in and single logout. They answer pages
 * (HTML) and redirects, never JSON; the OpenAPI document lists them with the bindings' parameters.
 */
@ApiTags('saml')
@ApiProduces('text/html')
@ApiBadRequestResponse({ description: 'an error page: the message cannot be read or names no registered service provider or URL' })
@Controller('saml/v2/:orgId')
export class SsoController {
  constructor(
    private readonly sso: SamlSsoService,
    private readonly slo: SingleLogoutService,
  ) {}

  @Get('sso')
  @Public()
  @ApiOperation({ summary: 'Single sign-on: an AuthnRequest by HTTP-Redirect (docs/saml.md)' })
  @ApiQuery({ name: 'SAMLRequest', required: true, description: 'the message, DEFLATE and base64 (SAML Bindings §3.4.4.1)' })
  @ApiQuery({ name: 'RelayState', required: false, description: 'returned as is; at most 80 bytes' })
  @ApiQuery({ name: 'SigAlg', required: false })
  @ApiQuery({ name: 'Signature', required: false })
  @ApiResponse({ status: 303, description: "on to the sign-in (the authorization of the application's hidden client)" })
  @ApiOkResponse({ description: 'an error response auto-posted to the registered ACS URL' })
  async redirectBinding(@Param('orgId') orgId: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    await this.answer(
      req,
      res,
      () => received(() => fromRedirect(rawQuery(req), 'SAMLRequest')),
      (message) => this.sso.receive(orgId, message),
    );
  }

  /**
   * HTTP-POST: the request is stored and the browser sent on by 303 to a GET (the authorization), so that the session
   * cookie (SameSite=Lax, not sent on this cross-site POST) arrives with it (docs/saml.md, "Single sign-on").
   */
  @Post('sso')
  @Public()
  @ApiOperation({ summary: 'Single sign-on: an AuthnRequest by HTTP-POST (docs/saml.md)' })
  @ApiConsumes('application/x-www-form-urlencoded')
  @ApiBody({
    schema: {
      type: 'object',
      required: ['SAMLRequest'],
      properties: { SAMLRequest: { type: 'string', description: 'the message, base64 (SAML Bindings §3.5.4)' }, RelayState: { type: 'string', maxLength: 80 } },
    },
  })
  @ApiResponse({ status: 303, description: 'on to the sign-in by a GET, so that the session cookie arrives' })
  @ApiOkResponse({ description: 'an error response auto-posted to the registered ACS URL' })
  async postBinding(@Param('orgId') orgId: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    await this.answer(
      req,
      res,
      () => received(() => fromPost(formOf(req), 'SAMLRequest')),
      (message) => this.sso.receive(orgId, message),
    );
  }

  @Get('continue')
  @Public()
  @ApiOperation({ summary: "Where the hidden client's sign-in returns: the response for the service provider (not for service providers to call)" })
  @ApiQuery({ name: 'state', required: true })
  @ApiQuery({ name: 'code', required: false })
  @ApiQuery({ name: 'error', required: false })
  @ApiOkResponse({ description: 'the response auto-posted to the ACS URL ([data-saml-continue])' })
  async continue(@Param('orgId') orgId: string, @Query() query: Record<string, unknown>, @Req() req: Request, @Res() res: Response): Promise<void> {
    send(req, res, await this.sso.complete(orgId, query));
  }

  @Get('init')
  @Public()
  @ApiOperation({ summary: 'IdP-initiated sign-in, for an application that allows it' })
  @ApiQuery({ name: 'sp', required: true, description: "the application's entity id" })
  @ApiResponse({ status: 303, description: 'on to the sign-in' })
  @ApiResponse({ status: 403, description: 'the application does not allow IdP-initiated sign-in' })
  @ApiResponse({ status: 404, description: 'no such application in the organization' })
  async init(@Param('orgId') orgId: string, @Query('sp') sp: unknown, @Req() req: Request, @Res() res: Response): Promise<void> {
    send(req, res, await this.sso.initiate(orgId, typeof sp === 'string' ? sp : ''));
  }

  /** Single logout: an SP's LogoutRequest by HTTP-Redirect (mellon's) or HTTP-POST. */
  @Get('slo')
  @Public()
  @ApiOperation({ summary: "Single logout: a service provider's signed LogoutRequest by HTTP-Redirect" })
  @ApiQuery({ name: 'SAMLRequest', required: true, description: 'the message, DEFLATE and base64 (SAML Bindings §3.4.4.1)' })
  @ApiQuery({ name: 'RelayState', required: false, description: 'returned as is; at most 80 bytes' })
  @ApiQuery({ name: 'SigAlg', required: false })
  @ApiQuery({ name: 'Signature', required: false })
  @ApiResponse({ status: 303, description: "a signed LogoutResponse to the application's sloUrl" })
  @ApiOkResponse({ description: 'the signed-out page (an application without sloUrl)' })
  async logoutByRedirect(@Param('orgId') orgId: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    await this.answer(
      req,
      res,
      () => received(() => fromRedirect(rawQuery(req), 'SAMLRequest')),
      (message) => this.slo.receive(orgId, message),
    );
  }

  @Post('slo')
  @Public()
  @ApiOperation({ summary: "Single logout: a service provider's signed LogoutRequest by HTTP-POST" })
  @ApiConsumes('application/x-www-form-urlencoded')
  @ApiBody({
    schema: {
      type: 'object',
      required: ['SAMLRequest'],
      properties: { SAMLRequest: { type: 'string', description: 'the message, base64 (SAML Bindings §3.5.4)' }, RelayState: { type: 'string', maxLength: 80 } },
    },
  })
  @ApiResponse({ status: 303, description: "a signed LogoutResponse to the application's sloUrl" })
  @ApiOkResponse({ description: 'the signed-out page (an application without sloUrl)' })
  async logoutByPost(@Param('orgId') orgId: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    await this.answer(
      req,
      res,
      () => received(() => fromPost(formOf(req), 'SAMLRequest')),
      (message) => this.slo.receive(orgId, message),
    );
  }

  private async answer(
    req: Request,
    res: Response,
    read: () => ReceivedMessage | SsoOutcome,
    handle: (message: ReceivedMessage) => Promise<SsoOutcome>,
  ): Promise<void> {
    const message = read();
    send(req, res, 'kind' in message ? message : await handle(message));
  }
}

/** The message a binding carries, or the error page for what cannot be read (nothing is stored or issued). */
function received(read: () => ReceivedMessage): ReceivedMessage | SsoOutcome {
  try {
    return read();
  } catch (error) {
    if (error instanceof XmlRefused) return { kind: 'error', status: 400, error: 'invalid_saml_request', description: error.message };
    throw error;
  }
}

export function rawQuery(req: Request): string {
  const url = req.originalUrl;
  const at = url.indexOf('?');
  return at < 0 ? '' : url.slice(at + 1);
}

export function formOf(req: Request): Record<string, unknown> {
  return typeof req.body === 'object' && req.body !== null ? (req.body as Record<string, unknown>) : {};
}

/** Sends an outcome: a 303 on, the auto-posting page (a CSP nonce for its one script, form-action the ACS URL), or an error page. */
export function send(req: Request, res: Response, outcome: SsoOutcome, field: MessageName = 'SAMLResponse'): void {
  const locale = chooseLocale(undefined, req.headers['accept-language']);
  const t = messages(locale);
  res.set(LOGIN_PAGE_HEADERS);
  if (outcome.kind === 'redirect') {
    res.redirect(303, outcome.location);
    return;
  }
  if (outcome.kind === 'signedOut') {
    res.status(200).type('html').send(loggedOutPage(locale, t));
    return;
  }
  if (outcome.kind === 'error') {
    res
      .status(outcome.status)
      .type('html')
      .send(errorPage(locale, t, outcome.error, outcome.description));
    return;
  }
  const nonce = randomBytes(16).toString('base64');
  res.set('Content-Security-Policy', contentSecurityPolicy(`'nonce-${nonce}'`, [outcome.acsUrl]));
  res
    .status(200)
    .type('html')
    .send(autoPostPage(locale, t, nonce, outcome.acsUrl, field, outcome.samlResponse, outcome.relayState));
}
