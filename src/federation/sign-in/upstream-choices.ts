import { Inject, Injectable } from '@nestjs/common';
import { LoginPolicies } from '../../login/login-policies.js';
import type { LoginOptions } from '../../login/login.views.js';
import { clientKindOf, mayServe } from '../../login/client-kind.js';
import { SIGN_IN_PROTOCOL } from '../../login/sign-in-protocol.js';
import type { Interaction, SignInProtocol } from '../../login/sign-in-protocol.js';
import { LOGIN_UI_PREFIX } from '../../login/ui-paths.js';
import type { IdpRow } from '../federation.queries.js';
import { IdentityProvidersService } from '../identity-providers.service.js';
import { samlSettingsOf } from '../saml/upstream-saml.js';
import { settingsOf } from '../upstream-oidc.js';

/** Which identity providers a sign-in's client may use: its organization's, or any for first-party applications. */
@Injectable()
export class UpstreamChoices {
  constructor(
    @Inject(SIGN_IN_PROTOCOL) private readonly protocol: SignInProtocol,
    private readonly idps: IdentityProvidersService,
    private readonly policies: LoginPolicies,
  ) {}

  /**
   * What the login page offers for this client: its organization's IdPs, whether passwords are taken, and the
   * issuers its forms may lead to (a first-party application's login name may lead to any IdP claiming a domain).
   */
  async options(interaction: Interaction): Promise<LoginOptions> {
    const client = await this.protocol.clientOf(interaction);
    const orgId = client?.portcullis_org_id;
    const idps = orgId ? await this.idps.ofOrganization(orgId) : [];
    const passwordLogin = orgId ? (await this.policies.of(interaction, orgId)).passwordLogin : true;
    const reachable = clientKindOf(client) === 'first-party' ? [...idps, ...(await this.idps.discoverable())] : idps;
    return {
      password: !passwordLogin ? 'none' : reachable.some((idp) => idp.domains.length > 0) ? 'optional' : 'required',
      idps: idps.map((idp) => ({ id: idp.id, name: idp.name })),
      idpAction: `${LOGIN_UI_PREFIX}/${interaction.uid}/idp`,
      upstreams: reachable.map((idp) => (idp.type === 'saml' ? samlSettingsOf(idp).ssoUrl : settingsOf(idp).issuer)),
    };
  }

  /** The IdP that claims a login name's domain (home-realm discovery), when this interaction may use it. */
  async forLoginName(interaction: Interaction, loginName: string): Promise<IdpRow | undefined> {
    const idp = await this.idps.forLoginName(loginName);
    return idp ? this.usable(interaction, idp.id) : undefined;
  }

  /** An IdP of this id that the interaction's client may sign in through. */
  async usable(interaction: Interaction, idpId: string): Promise<IdpRow | undefined> {
    const idp = idpId ? await this.idps.byId(idpId) : undefined;
    if (!idp) return undefined;
    const client = await this.protocol.clientOf(interaction);
    return client && mayServe(client, { orgId: idp.orgId }) ? idp : undefined;
  }
}
