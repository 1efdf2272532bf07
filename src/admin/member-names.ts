import type { Member } from '../users/memberships.service.js';
import type { UserDirectory } from '../users/user-directory.service.js';
import type { MemberDto } from './dto/members.dto.js';

/**
 * A page of members with their login and display names, so a list names people rather than ids — also an instance
 * member of another organization (docs/console.md, "What it shows"). Naming a member is reading it, which the
 * list's callers may: an organization's members are its own users, the instance's are listed to an IAM_OWNER.
 */
export async function namedMembers(directory: UserDirectory, members: Member[]): Promise<MemberDto[]> {
  const names = new Map((await directory.namesOf(members.map((m) => m.userId))).map((name) => [name.userId, name]));
  return members.map((member) => {
    const name = names.get(member.userId);
    if (!name) return member;
    return { ...member, loginName: name.loginName, ...(name.displayName ? { displayName: name.displayName } : {}) };
  });
}
