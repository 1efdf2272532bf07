import { Injectable } from '@nestjs/common';
import type { Router } from 'express';
import { FederatedSignInUi } from './federated-sign-in.router.js';
import { IdpTestSignInUi } from './idp-test-sign-in.router.js';
import { UpstreamAnswersUi } from './upstream-answers.router.js';

/** Federation's pages in the login UI: the upstream doors of a sign-in, the upstreams' answers, the test sign-ins. */
@Injectable()
export class FederatedSignInRoutes {
  constructor(
    private readonly signIn: FederatedSignInUi,
    private readonly answers: UpstreamAnswersUi,
    private readonly tests: IdpTestSignInUi,
  ) {}

  routes(router: Router): void {
    this.signIn.routes(router);
    this.answers.routes(router);
    this.tests.routes(router);
  }
}
