import type { DatabaseAvailability } from '../database/database-availability.js';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import 'reflect-metadata';
import type { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { ModuleRef } from '@nestjs/core';
import { DomainError, ErrorCode } from '../errors/domain-error.js';
import { AccessGuard } from './access.guard.js';
import { Public } from './authenticated.decorator.js';

class Routes {
  undeclared() {}
  @Public()
  open() {}
}

function contextFor(handler: () => void): ExecutionContext {
  return {
    getHandler: () => handler,
    getClass: () => Routes,
    switchToHttp: () => ({ getRequest: () => ({ headers: {}, params: {} }), getResponse: () => ({}) }),
  } as unknown as ExecutionContext;
}

describe('AccessGuard', () => {
  // The policy checks never reach the database: no outage to report.
  const guard = new AccessGuard(new Reflector(), { reportUnavailable: () => undefined } as unknown as DatabaseAvailability, {} as ModuleRef);

  it('refuses a route that declares no policy instead of opening it', async () => {
    await assert.rejects(
      guard.canActivate(contextFor(Routes.prototype.undeclared)),
      (error: unknown) => error instanceof DomainError && error.code === ErrorCode.PermissionDenied,
    );
  });

  it('lets a public route through without a token', async () => {
    assert.equal(await guard.canActivate(contextFor(Routes.prototype.open)), true);
  });
});
