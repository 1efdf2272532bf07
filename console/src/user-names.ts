import { useEffect, useState } from 'preact/hooks';
import { api, enc } from './api';
import type { Schema } from './api';

type User = Schema<'UserDto'>;

/** How a person or service user is named in a list: the display name with the user name, else the user name. */
export function userLabel(user: User): string {
  const display = user.profile?.displayName || [user.profile?.firstName, user.profile?.lastName].filter(Boolean).join(' ') || user.name;
  return display && display !== user.userName ? `${display} (${user.userName})` : user.userName;
}

/**
 * The names of the users a list mentions by id (grants, provisioning objects), read one by one with
 * `GET …/users/{userId}` (a list names few users). A user that cannot be read (removed, another organization)
 * keeps its id.
 */
export function useUserNames(orgId: string, ids: (string | null | undefined)[]): Map<string, string> {
  const [names, setNames] = useState<Map<string, string>>(new Map());
  const wanted = [...new Set(ids.filter((id): id is string => Boolean(id)))].sort();
  const key = wanted.join(',');
  useEffect(() => {
    let live = true;
    const missing = wanted.filter((id) => !names.has(id));
    if (missing.length === 0) return;
    void Promise.all(
      missing.map((id) =>
        api<User>('GET', `/management/v1/orgs/${enc(orgId)}/users/${enc(id)}`).then(
          (user) => [id, userLabel(user)] as const,
          () => [id, id] as const,
        ),
      ),
    ).then((found) => live && setNames((known) => new Map([...known, ...found])));
    return () => {
      live = false;
    };
  }, [orgId, key]);
  return names;
}
