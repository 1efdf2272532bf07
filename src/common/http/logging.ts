import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LoggerService } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { pino } from 'pino';
import type { Logger as Pino } from 'pino';
import { pinoHttp } from 'pino-http';
import type { AppConfig } from '../config/config.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/**
 * Login UI paths and the authorization endpoint's resume path carry the interaction id, which with
 * its cookie continues a sign-in: never logged.
 */
const INTERACTION_PATH = /^(\/ui\/login\/|\/oauth\/v2\/authorize\/)[^/]+/;

/**
 * Structured JSON logs (pino) with the request id on every line logged during a request. Paths are
 * logged without their query string and credentials headers are never logged: query strings carry
 * id_token_hint and filter values, headers carry tokens and session cookies; interaction ids in paths
 * are replaced by `:uid`.
 */
export class AppLogger implements LoggerService {
  readonly root: Pino;
  private readonly requestLoggers = new AsyncLocalStorage<Pino>();

  constructor(config: Pick<AppConfig, 'logLevel'>, destination?: pino.DestinationStream) {
    this.root = destination ? pino({ level: config.logLevel }, destination) : pino({ level: config.logLevel });
  }

  /** Express middleware: the request's completion line, and its logger for every line logged meanwhile. */
  requestMiddleware() {
    const http = pinoHttp({
      logger: this.root,
      genReqId: assignRequestId,
      serializers: {
        req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, path: loggedPath(req.url) }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
      customLogLevel: (_req: IncomingMessage, res: ServerResponse, err?: Error) =>
        err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info',
      quietReqLogger: true,
    });
    return (req: Request, res: Response, next: NextFunction) => {
      http(req, res);
      this.requestLoggers.run(req.log, next);
    };
  }

  /**
   * The same X-Request-Id and completion line as `requestMiddleware`, without pino-http's per-request
   * child logger and request-scoped store: for the OIDC endpoints, whose requests are a few hundred
   * microseconds of work, where those cost about a tenth. Lines logged meanwhile carry no request id.
   */
  completionLog() {
    return (req: IncomingMessage, res: ServerResponse, next: () => void) => {
      const id = assignRequestId(req, res);
      const started = performance.now();
      res.once('finish', () => {
        const level = res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info';
        if (!this.root.isLevelEnabled(level)) return;
        const line = { req: { id, method: req.method, path: loggedPath(req.url) }, res: { statusCode: res.statusCode }, responseTime: Math.round(performance.now() - started) };
        this.root[level](line, 'request completed');
      });
      next();
    };
  }

  log(message: unknown, ...params: unknown[]): void {
    this.write('info', message, params);
  }
  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }
  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }
  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }
  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  /**
   * Nest calls `logger.level(message, ...params, context)`; the last string is the context. An object
   * message is merged into the line (`{ err, ... }`), with the next string as the text.
   */
  private write(level: pino.Level, message: unknown, params: unknown[]): void {
    const logger = this.requestLoggers.getStore() ?? this.root;
    const context = params.length > 0 && typeof params[params.length - 1] === 'string' ? (params.pop() as string) : undefined;
    if (message instanceof Error) {
      logger[level]({ context, err: message }, message.message);
    } else if (typeof message === 'object' && message !== null) {
      const text = typeof params[0] === 'string' ? (params.shift() as string) : undefined;
      logger[level]({ context, ...message }, text);
    } else {
      // Nest passes an error's stack as the second argument of error().
      const stack = level === 'error' && typeof params[0] === 'string' ? params.shift() : undefined;
      logger[level]({ context, ...(stack ? { stack } : {}) }, String(message));
    }
  }
}

/** A request's path as logged: no query string, no interaction id. */
function loggedPath(url: string | undefined): string {
  return (url ?? '/').split('?')[0].replace(INTERACTION_PATH, '$1:uid');
}

/** The caller's X-Request-Id when it is well-formed, else a new one; echoed in the response. */
function assignRequestId(req: IncomingMessage, res: ServerResponse): string {
  const given = req.headers['x-request-id'];
  const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
  res.setHeader('X-Request-Id', id);
  return id;
}
