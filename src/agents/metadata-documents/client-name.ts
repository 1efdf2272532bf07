/** The longest `client_name` a self-registered client may give (docs/agents.md, "Consent and connected agents"). */
export const MAX_CLIENT_NAME_LENGTH = 100;

/**
 * Characters that make a name read otherwise than it is stored (Unicode TR #9, bidi controls; TR #36 §2,
 * invisible and format characters): controls (Cc), format characters (Cf: zero-width joiners and spaces, the bidi
 * embeddings, overrides and isolates such as U+202E), surrogates, and the line and paragraph separators.
 */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}\p{Bidi_Control}]/u;

/**
 * What is wrong with a client's `client_name` for a consent page, or undefined. The page shows it as the client's
 * own words (RFC 7591 §5 leaves a human-readable name unverified), so it must at least read as it is: no hidden or
 * direction-changing characters, and short enough to be read whole. A name that is not given is no problem.
 */
export function clientNameProblem(name: unknown): string | undefined {
  if (name === undefined) return undefined;
  if (typeof name !== 'string') return 'client_name must be a string';
  if (HIDDEN.test(name)) return 'client_name must not hold control, format (such as zero-width) or bidirectional control characters';
  if ([...name].length > MAX_CLIENT_NAME_LENGTH) return `client_name must be at most ${MAX_CLIENT_NAME_LENGTH} characters`;
  return undefined;
}
