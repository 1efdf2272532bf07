import { Injectable } from '@nestjs/common';
import express from 'express';
import type { Router } from 'express';
import { AccountPageUi } from '../../account/account-page.router.js';
import { MyAppsPage } from '../../account/my-apps.page.js';
import { BrandAssets } from '../../branding/brand-assets.js';
import { FederatedSignInRoutes } from '../../federation/sign-in/federated-sign-in.routes.js';
import { BrandPreviewPage } from '../../login/brand-preview.page.js';
import { LoginUiRoutes } from '../../login/login-ui.routes.js';

/**
 * The login UI (`/ui/login/*`, `/ui/account/*`, `/ui/apps`) that OidcDispatch mounts: the sign-in's pages, the account page and
 * the upstream identity providers' doors, one Express router (docs/decisions/oidc-before-express.md).
 */
@Injectable()
export class LoginUiRouter {
  constructor(
    private readonly login: LoginUiRoutes,
    private readonly accountPage: AccountPageUi,
    private readonly myApps: MyAppsPage,
    private readonly federation: FederatedSignInRoutes,
    private readonly brandAssets: BrandAssets,
    private readonly brandPreview: BrandPreviewPage,
  ) {}

  router(): Router {
    const router = express.Router();
    // A draft brand's preview link (docs/branding.md, "Preview"), before `/:uid` could take its path.
    this.brandPreview.routes(router);
    this.login.routes(router);
    // A brand's stylesheet and logo, beside the design system's (docs/branding.md).
    this.brandAssets.routes(router);
    this.accountPage.routes(router);
    this.myApps.routes(router);
    this.federation.routes(router);
    return router;
  }
}
