import { createHash } from 'node:crypto';
import type { UnitOfWork } from '../../common/database/unit-of-work.js';
import { DomainError } from '../../common/errors/domain-error.js';
import type { IdentityProvidersService } from '../../federation/identity-providers.service.js';
import type { UserIdentitiesService } from '../../federation/user-identities.service.js';
import type { PlannedIdp, PlannedIdpLink } from '../migration-plan.js';
import { fingerprintOf } from '../migrated-objects.js';
import type { MigratedObjects } from '../migrated-objects.js';
import type { MigrationTally } from '../migration-tally.js';
import type { RunContext } from './user-step.js';

/**
 * Upstream IdPs through the federation room's own service (so each is its `org.idp.added` event and its secret is
 * kept encrypted), then the users' links to them (docs/migrating.md, "Identity providers"). Keyed by the IdP's alias
 * and by alias and user: a second run changes nothing, an IdP changed at the source since is changed here.
 */
export class IdpStep {
  constructor(
    private readonly services: { idps: IdentityProvidersService; identities: UserIdentitiesService },
    private readonly uow: UnitOfWork,
    private readonly objects: MigratedObjects,
    private readonly tally: MigrationTally,
    private readonly run: RunContext,
  ) {}

  async apply(idps: PlannedIdp[], links: PlannedIdpLink[], userTargets: Map<string, string>): Promise<void> {
    const mapped = await this.objects.find(
      'idp',
      idps.map((i) => i.sourceId),
    );
    const { editorUserId, orgId, dryRun } = this.run;
    const targets = new Map<string, string>();
    for (const idp of idps) {
      const fingerprint = idpFingerprint(idp);
      const earlier = mapped.get(idp.sourceId);
      const input =
        idp.type === 'saml'
          ? { name: idp.name, metadataXml: idp.metadataXml, nameIdFormat: idp.nameIdFormat, signAuthnRequests: idp.signAuthnRequests }
          : { name: idp.name, issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret, authMethod: idp.authMethod, scopes: idp.scopes };
      try {
        if (earlier) targets.set(idp.sourceId, earlier.targetId);
        if (earlier?.fingerprint === fingerprint) this.tally.count('idp', 'unchanged');
        else if (dryRun) this.tally.count('idp', earlier ? 'updated' : 'created');
        else if (earlier) {
          await this.services.idps.change(editorUserId, orgId, earlier.targetId, input);
          await this.remember('idp', idp.sourceId, earlier.targetId, fingerprint);
          this.tally.count('idp', 'updated');
        } else {
          const made = await this.services.idps.create(editorUserId, orgId, { type: idp.type ?? 'oidc', ...input });
          await this.remember('idp', idp.sourceId, made.id, fingerprint);
          targets.set(idp.sourceId, made.id);
          this.tally.count('idp', 'created');
        }
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        this.tally.fail({ kind: 'idp', sourceId: idp.sourceId, message: error.message });
      }
    }
    const keyOf = (link: PlannedIdpLink) => `${link.idpSourceId}:${link.userSourceId}`;
    const linked = await this.objects.find('idpLink', links.map(keyOf));
    for (const link of links) {
      const key = keyOf(link);
      const fingerprint = fingerprintOf(link);
      const earlier = linked.get(key);
      if (earlier?.fingerprint === fingerprint) {
        this.tally.count('idpLink', 'unchanged');
        continue;
      }
      const userId = userTargets.get(link.userSourceId);
      const idpId = targets.get(link.idpSourceId);
      if (dryRun || userId === undefined || idpId === undefined) {
        // A user or IdP that failed is listed as such; in a dry run nothing is linked.
        if (dryRun) this.tally.count('idpLink', earlier ? 'updated' : 'created');
        continue;
      }
      try {
        await this.services.identities.link(editorUserId, orgId, userId, idpId, link.subject);
        await this.remember('idpLink', key, userId, fingerprint);
        this.tally.count('idpLink', 'created');
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        this.tally.fail({ kind: 'idpLink', sourceId: key, message: error.message });
      }
    }
  }

  private remember(kind: string, sourceId: string, targetId: string, fingerprint: string): Promise<void> {
    return this.uow.run((manager) => this.objects.remember(manager, kind, [{ sourceId, targetId, fingerprint }]));
  }
}

/** The IdP as the source says it, its secret as a hash of a hash: the id map holds no secret. */
function idpFingerprint(idp: PlannedIdp): string {
  if (idp.type === 'saml') return fingerprintOf(idp);
  const { clientSecret, ...rest } = idp;
  const secretHash = createHash('sha256')
    .update(`secret:${createHash('sha256').update(clientSecret).digest('hex')}`)
    .digest('hex');
  return fingerprintOf({ ...rest, secretHash });
}
