import { Control } from 'ldapts';
import type { BerReader } from 'ldapts';

/**
 * The password policy control of OpenLDAP's ppolicy (draft-behera-ldap-password-policy-11 §6): sent empty with a bind
 * or a Password Modify, answered by the server with why a right password does not sign in. ldapts hands a response
 * control of an unknown type to the request control of that type, so one instance carries the question and, after
 * the operation (failed or not), the answer.
 */
export class PasswordPolicyControl extends Control {
  static readonly type = '1.3.6.1.4.1.42.2.27.8.5.1';
  /** §6.2 error: passwordExpired(0), accountLocked(1), changeAfterReset(2), … ; undefined when none was answered. */
  error?: PasswordPolicyError;
  /** §6.2 warning graceAuthNsRemaining: the password has expired and this bind used one of its grace logins. */
  graceAuthNsRemaining?: number;
  /** §6.2 warning timeBeforeExpiration, in seconds. */
  timeBeforeExpiration?: number;

  constructor() {
    super(PasswordPolicyControl.type);
  }

  protected override parseControl(reader: BerReader): void {
    Object.assign(this, parsePasswordPolicyResponse(reader.remainingBuffer));
  }
}

export const PasswordPolicyError = { passwordExpired: 0, accountLocked: 1, changeAfterReset: 2 } as const;
export type PasswordPolicyError = number;

/**
 * PasswordPolicyResponseValue (§6.2): SEQUENCE { warning [0] CHOICE { timeBeforeExpiration [0] INTEGER,
 * graceAuthNsRemaining [1] INTEGER } OPTIONAL, error [1] ENUMERATED OPTIONAL }. Anything it cannot read is no answer.
 */
export function parsePasswordPolicyResponse(value: Buffer): Pick<PasswordPolicyControl, 'error' | 'graceAuthNsRemaining' | 'timeBeforeExpiration'> {
  const outer = element(value, 0);
  if (!outer || outer.tag !== 0x30) return {};
  const answer: Pick<PasswordPolicyControl, 'error' | 'graceAuthNsRemaining' | 'timeBeforeExpiration'> = {};
  for (let at = 0, inner = element(outer.content, 0); inner; inner = element(outer.content, at)) {
    at = inner.end;
    if (inner.tag === 0xa0) {
      const warning = element(inner.content, 0);
      if (warning?.tag === 0x80) answer.timeBeforeExpiration = unsigned(warning.content);
      if (warning?.tag === 0x81) answer.graceAuthNsRemaining = unsigned(warning.content);
    } else if (inner.tag === 0x81) answer.error = unsigned(inner.content);
  }
  return answer;
}

/** One BER element at `at` (definite lengths only, as LDAP uses: RFC 4511 §5.1). */
function element(buffer: Buffer, at: number): { tag: number; content: Buffer; end: number } | undefined {
  if (at + 2 > buffer.length) return undefined;
  const tag = buffer[at];
  let length = buffer[at + 1];
  let start = at + 2;
  if (length & 0x80) {
    const bytes = length & 0x7f;
    if (bytes === 0 || bytes > 4 || start + bytes > buffer.length) return undefined;
    length = buffer.readUIntBE(start, bytes);
    start += bytes;
  }
  if (start + length > buffer.length) return undefined;
  return { tag, content: buffer.subarray(start, start + length), end: start + length };
}

function unsigned(content: Buffer): number {
  return content.length === 0 || content.length > 6 ? 0 : content.readUIntBE(0, content.length);
}
