import type { EntityManager } from 'typeorm';

/** A user an upstream identity may be linked to (docs/federation.md): who it is and what the link rules read. */
export interface LinkCandidate {
  id: string;
  type: string;
  state: string;
  emailVerified: boolean;
}

type Row = { id: string; type: string; state: string; email_verified: number | boolean };

const COLUMN = { externalId: 'external_id', userName: 'user_name_lower', email: 'email_lower' } as const;

/**
 * The users of the organization whose `externalId`, `userName` or primary e-mail is `value` (the last two
 * case-insensitively, as they are unique or matched); two are enough to know the match is not unique. By e-mail only
 * users holding the address verified: an address anyone can type on their own account decides nothing
 * (docs/federation.md, "Who the upstream identity is"), so it neither links nor blocks the person it belongs to.
 */
export async function linkCandidates(manager: EntityManager, orgId: string, by: keyof typeof COLUMN, value: string): Promise<LinkCandidate[]> {
  const wanted = by === 'externalId' ? value : value.toLowerCase();
  const verified = by === 'email' ? ' AND email_verified = 1' : '';
  const rows: Row[] = await manager.query(
    `SELECT id, type, state, email_verified FROM users WHERE org_id = ? AND ${COLUMN[by]} = ?${verified} ORDER BY id LIMIT 2`,
    [orgId, wanted],
  );
  return rows.map(candidate);
}

/** The user an existing link names. */
export async function linkedUser(manager: EntityManager, userId: string): Promise<LinkCandidate | undefined> {
  const rows: Row[] = await manager.query('SELECT id, type, state, email_verified FROM users WHERE id = ?', [userId]);
  return rows.map(candidate)[0];
}

function candidate(r: Row): LinkCandidate {
  return { id: r.id, type: r.type, state: r.state, emailVerified: Number(r.email_verified) === 1 || r.email_verified === true };
}
