import { Injectable } from '@nestjs/common';
import { ExternalResources } from '../external-resources/external-resources.service.js';
import { IdJagIssuers } from '../../federation/id-jag-issuers.js';
import { ApplicationAccess } from '../../users/project-access/application-access.service.js';

/** What the two sides of enterprise-managed authorization consult (docs/agents.md, "Enterprise-managed authorization"). */
@Injectable()
export class IdJagServices {
  constructor(
    readonly externalResources: ExternalResources,
    readonly access: ApplicationAccess,
    readonly issuers: IdJagIssuers,
  ) {}
}

/** The token type of an Identity Assertion JWT Authorization Grant (draft-ietf-oauth-identity-assertion-authz-grant §3). */
export const ID_JAG_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id-jag';
/** Its JOSE header `typ` (draft-ietf-oauth-identity-assertion-authz-grant §3). */
export const ID_JAG_TYP = 'oauth-id-jag+jwt';
/** The longest an ID-JAG lives, issued or accepted (docs/agents.md, "Enterprise-managed authorization"). */
export const ID_JAG_LIFETIME_S = 300;
