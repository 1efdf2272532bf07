import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { DomainError } from '../common/errors/domain-error.js';
import { statusOf } from '../common/errors/api-exception.filter.js';
import { AccountLinkTrips } from '../federation/sign-in/account-link-trips.js';
import { UserIdentitiesService } from '../federation/user-identities.service.js';
import { AccountPageRenderer, done } from './account-page.renderer.js';
import type { AccountForm, Visit } from './account-visits.js';

/** The account page's linked identities (docs/account.md): link one through its IdP, or unlink one. */
@Injectable()
export class IdentityChanges {
  constructor(
    private readonly renderer: AccountPageRenderer,
    private readonly linkTrips: AccountLinkTrips,
    private readonly identities: UserIdentitiesService,
  ) {}

  forms(): AccountForm[] {
    return [
      ['identities/link', true, (req, res, v) => this.link(req, res, v)],
      ['identities/unlink', true, (req, res, v) => this.unlink(req, res, v)],
    ];
  }

  /** To one of the organization's identity providers, to sign in there as the identity to link (docs/federation.md). */
  private async link(req: Request, res: Response, visit: Visit): Promise<void> {
    const idp = await this.linkTrips.idpOf(visit.user.orgId, String(req.body.idpId ?? ''));
    if (!idp) return this.renderer.render(res, visit, { status: 404, problem: { section: 'identities', message: visit.t.unknownIdp } });
    let target: URL;
    try {
      target = await this.linkTrips.start(idp, visit.session.uid);
    } catch {
      return this.renderer.render(res, visit, { status: 502, problem: { section: 'identities', message: visit.lt.idpUnavailable } });
    }
    res.status(303).location(target.href).set('Content-Length', '0').end();
  }

  /**
   * Back from the identity provider: the round trip must be this session's (a trip of another browser finds nothing),
   * the identity it vouches for is linked to the session's user unless it is another user's.
   */
  async linked(req: Request, res: Response, visit: Visit): Promise<void> {
    const found = await this.linkTrips.finish(String(req.query.trip ?? ''), visit.session.uid, visit.user.orgId);
    if (found === 'expired') return this.renderer.render(res, visit, { status: 400, problem: { section: 'identities', message: visit.t.linkExpired } });
    if (found === 'refused') return this.renderer.render(res, visit, { status: 400, problem: { section: 'identities', message: visit.lt.idpRefused } });
    try {
      await this.identities.linkOwn(visit.user.id, visit.user.orgId, found.idp.id, found.subject);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return this.renderer.render(res, visit, { status: statusOf(error.code), problem: { section: 'identities', message: error.message } });
    }
    done(res, 'linked');
  }

  /** The last way in of a person without a password stays: unlinking it would lock the person out. */
  private async unlink(req: Request, res: Response, visit: Visit): Promise<void> {
    const { user } = visit;
    const linked = await this.identities.list(user.id, user.orgId, user.id);
    if (user.passwordHash === null && linked.length <= 1)
      return this.renderer.render(res, visit, { status: 409, problem: { section: 'identities', message: visit.t.lastWayIn } });
    await this.identities.unlink(user.id, user.orgId, user.id, String(req.body.idpId ?? ''), String(req.body.subject ?? ''));
    done(res, 'unlinked');
  }
}
