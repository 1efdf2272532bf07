import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LoggerService } from '@nestjs/common';
import { pino } from 'pino';
import type { Logger as Pino } from 'pino';
import type { AppConfig } from '../config/config.js';
import { failureOf } from './failure-causes.js';

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
  private readonly requests = new AsyncLocalStorage<RequestScope>();
  /** Requests in flight in `requests`; at none the storage is disabled (requestMiddleware says why). */
  private inOwnStorage = 0;
  /** The request being served where it runs in another library's storage instead (findRequestsWith). */
  private currentRequest: () => object | undefined = () => undefined;

  /** Standard output, written asynchronously (pino's default): a line costs a request no system call. */
  private readonly stdout?: ReturnType<typeof pino.destination>;

  constructor(config: Pick<AppConfig, 'logLevel'>, destination?: pino.DestinationStream) {
    if (!destination) this.stdout = pino.destination({ dest: 1, sync: false });
    this.root = pino({ level: config.logLevel }, destination ?? this.stdout);
  }

  /**
   * Writes out every line still queued, at the end of a graceful stop. The process then re-raises its signal, which
   * runs no exit hooks: a burst a slow reader of the pipe had left queued (the route list at debug, the last
   * requests' lines) was lost. A reader that takes nothing for `timeoutMs` does not hold the stop for longer.
   */
  async end(timeoutMs = 5000): Promise<void> {
    const stream = this.stdout;
    if (!stream) return;
    let timer: NodeJS.Timeout | undefined;
    const closed = new Promise<void>((resolve) => {
      stream.once('close', resolve);
      timer = setTimeout(resolve, timeoutMs);
    });
    stream.end();
    await closed;
    clearTimeout(timer);
  }

  /**
   * Middleware for Express and for the OIDC dispatch in front of it: the request's id (X-Request-Id,
   * also `req.id` for the error filters), its completion line, and the id on every line logged while it
   * runs. Hand-written rather than pino-http, whose per-request child logger and serializers cost about
   * a tenth of a token request; the child logger is made only when a line is logged.
   *
   * `ownStorage: false` is for requests that run in an AsyncLocalStorage of their own already (oidc-provider's,
   * see findRequestsWith): the id is kept on the request rather than in a second storage, which every promise of
   * the request would pay to carry (async-hook propagation, BENCHMARKS.md, "Where each goal stands").
   *
   * An enabled storage costs every promise of the process, inside a request of its own or not: once the last
   * request in it has ended, it is disabled until the next one enters it (Node's `disable()`; `run` enables it
   * again). So OIDC requests carry one storage, not two, whenever no API request is in flight; a line logged by
   * work a request left behind after that has no request id.
   */
  requestMiddleware({ ownStorage = true }: { ownStorage?: boolean } = {}) {
    return (req: ScopedRequest, res: ServerResponse, next: () => void) => {
      const id = (req.id = assignRequestId(req, res));
      const started = performance.now();
      if (ownStorage) this.inOwnStorage++;
      // 'close' comes after 'finish', and also when the client went away first (logged as aborted, as
      // pino-http did).
      res.once('close', () => {
        this.complete(req, res, id, started);
        if (ownStorage && --this.inOwnStorage === 0) this.requests.disable();
      });
      if (ownStorage) return this.requests.run({ id }, next);
      req[SCOPE] = { id };
      next();
    };
  }

  /**
   * How to find the request being served when it was given no storage of the logger's (`ownStorage: false`):
   * e.g. oidc-provider's `Provider.ctx.req`. Lines logged outside both (before the library takes the request)
   * have no request id; the request's own completion line always has it.
   */
  findRequestsWith(current: () => object | undefined): void {
    this.currentRequest = current;
  }

  private complete(req: IncomingMessage, res: ServerResponse, id: string, started: number): void {
    const aborted = !res.writableFinished;
    const level = aborted || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info';
    if (!this.root.isLevelEnabled(level)) return;
    const line = {
      req: { id, method: req.method, path: loggedPath(req.url) },
      res: { statusCode: res.statusCode },
      responseTime: Math.round(performance.now() - started),
    };
    const failure = res.statusCode >= 500 ? (failureOf(res) ?? { cause: 'unknown' }) : undefined;
    this.root[level](failure ? { ...line, ...failure } : line, aborted ? 'request aborted' : 'request completed');
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
  private write(given: pino.Level, message: unknown, params: unknown[]): void {
    const context = params.length > 0 && typeof params[params.length - 1] === 'string' ? (params.pop() as string) : undefined;
    const level = given === 'info' && context !== undefined && WIRING_CONTEXTS.has(context) ? 'debug' : given;
    if (!this.root.isLevelEnabled(level)) return;
    const scope = this.requests.getStore() ?? (this.currentRequest() as ScopedRequest | undefined)?.[SCOPE];
    const logger = scope ? (scope.logger ??= this.root.child({ reqId: scope.id })) : this.root;
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

/**
 * Nest's lines about its own wiring (every module loaded, every route mapped: some 220 lines at each start) are
 * debug, not info: at info the start-up says what runs and where, in a few lines (docs/operations.md, "Start-up").
 */
const WIRING_CONTEXTS = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestFactory']);

/** The request being served: its id, and its logger once a line was logged during it. */
interface RequestScope {
  id: string;
  logger?: Pino;
}

/** Where a request served without the logger's storage keeps its scope. */
const SCOPE = Symbol('portcullis.log-scope');
type ScopedRequest = IncomingMessage & { id?: string; [SCOPE]?: RequestScope };

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
