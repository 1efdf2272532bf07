import type { FactorOwner } from '../users/factors/factors.service.js';
import { ACR_MFA } from './authentication-methods.js';
import type { Interaction } from './login-interactions.js';

/** Where a sign-in stands between its first factor and its completion (kept in the interaction). */
export interface PendingSignIn {
  userId: string;
  orgId: string;
  loginName: string;
  /** RFC 8176 methods of the steps done so far. */
  methods: string[];
  /** Methods a trusted upstream identity provider reported (docs/federation.md), carried into `amr` as they are. */
  upstream?: string[];
  /** No factor yet: the user enrols one (`required`: without the choice to skip). */
  enrol: boolean;
  required: boolean;
  /** A TOTP enrolment under way. */
  totpFactorId?: string;
  /** The recovery codes were shown; the next step completes the sign-in. */
  recoveryShown?: boolean;
  /** Every factor is done; the user must choose a new password before the sign-in completes (docs/mail.md, "Password change required"). */
  changePassword?: boolean;
  /** Every factor is done; sign-in waits until the address a link was mailed to is verified (docs/mail.md, "E-mail verification"). */
  verifyEmail?: string;
  /** The person's preferred language: the pages after the first factor speak it (docs/languages.md, "Which language"). */
  language?: string;
}

export const PENDING = 'portcullis_second_factor';

export function pendingOf(interaction: Interaction): PendingSignIn | undefined {
  return interaction.result?.[PENDING] as PendingSignIn | undefined;
}

/** A sign-in of `user` that has done `methods` so far. */
export function signingIn(
  user: { id: string; orgId: string; loginName: string; preferredLanguage?: string | null },
  methods: string[] = [],
  upstream: string[] = [],
): PendingSignIn {
  return {
    userId: user.id,
    orgId: user.orgId,
    loginName: user.loginName,
    ...(user.preferredLanguage ? { language: user.preferredLanguage } : {}),
    methods,
    ...(upstream.length > 0 ? { upstream } : {}),
    enrol: false,
    required: false,
  };
}

export function owner(pending: PendingSignIn): FactorOwner {
  return { id: pending.userId, orgId: pending.orgId };
}

export function requestsMfa(interaction: Interaction): boolean {
  return String(interaction.params.acr_values ?? '')
    .split(' ')
    .includes(ACR_MFA);
}
