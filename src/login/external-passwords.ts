import { Injectable } from '@nestjs/common';

/**
 * What a password checked outside Portcullis came to: right, wrong, not checked because its keeper is unreachable,
 * or right but expired (or to be changed first), which its keeper said only because it was right.
 */
export type ExternalPasswordAnswer = 'match' | 'mismatch' | 'unreachable' | 'expired';

/**
 * A keeper of some users' passwords other than Portcullis itself: a directory checks them by binding as the person
 * (docs/directories.md, "Sign-in"). Declared here and registered by the room that checks them, so the sign-in
 * imports no such room.
 */
export interface ExternalPasswordCheck {
  /** True when this keeper checks the user's password (then Portcullis's own hash, if any, is not used). */
  owns(userId: string): Promise<boolean>;
  check(userId: string, password: string): Promise<ExternalPasswordAnswer>;
  /**
   * The names of the keepers that check an organization's people's passwords: a passkeys-only organization's sign-in
   * page offers them as doors of their own (docs/passwordless.md, "Federated and directory people are not affected").
   */
  doorsOf(orgId: string): Promise<string[]>;
}

/** The registered keepers; a user's password is checked by the first that owns it, else by its stored hash. */
@Injectable()
export class ExternalPasswords {
  private readonly checks: ExternalPasswordCheck[] = [];

  register(check: ExternalPasswordCheck): void {
    this.checks.push(check);
  }

  async of(userId: string): Promise<ExternalPasswordCheck | undefined> {
    for (const check of this.checks) if (await check.owns(userId)) return check;
    return undefined;
  }

  async doorsOf(orgId: string): Promise<string[]> {
    return (await Promise.all(this.checks.map((check) => check.doorsOf(orgId)))).flat();
  }
}
