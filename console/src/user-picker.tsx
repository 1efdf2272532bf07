import { useEffect, useRef, useState } from 'preact/hooks';
import { api, enc, query } from './api';
import type { Schema } from './api';
import { ErrorMessage, Field, Select, useLoad } from './components';
import { t } from './i18n';
import type { Org } from './pages/orgs';

/** One line of GET …/users?query= (docs/product-rules.md, "API"). */
type ListedUser = Schema<'UserListItemDto'>;

const RESULTS = 10;
/** Typing pauses this long before a search, so a name typed letter by letter is one request, not one per letter. */
const SEARCH_DELAY_MS = 250;

/**
 * Picks a user for a grant (docs/console.md, "What it shows": member and role grants pick users by name): a search through the user
 * search API (`GET /management/v1/orgs/{orgId}/users?query=`, matching user name, names and e-mail) whose
 * results fill the user ID field; the field stays editable, so pasting an id still works. Organization members
 * and group members are users of that organization; an instance member may be anyone's, so without `orgId`
 * the picker first asks for the organization to search in (instance owners only, who may list them).
 */
export function UserPicker({ orgId, userId, onChange }: { orgId?: string; userId: string; onChange: (userId: string) => void }) {
  const [searchOrg, setSearchOrg] = useState(orgId ?? '');
  const orgs = useLoad(() => (orgId ? Promise.resolve(null) : api<Schema<'OrgListDto'>>('GET', `/admin/v1/orgs${query({ limit: 1000 })}`)), [orgId]);
  const [text, setText] = useState('');
  const [found, setFound] = useState<ListedUser[] | null>(null);
  const [chosen, setChosen] = useState<ListedUser | null>(null);
  const [error, setError] = useState<unknown>(null);
  // Only the newest search's answer is shown: an older one may arrive after it.
  const latest = useRef(0);

  // The first organization until one is chosen. Read at the update, not from this render: a choice made between
  // the list's arrival and this effect must stand.
  useEffect(() => {
    const first = orgs.data?.orgs[0]?.id;
    if (!orgId && first) setSearchOrg((current) => current || first);
  }, [orgs.data]);

  const search = async (term: string, org: string) => {
    const mine = ++latest.current;
    if (!term.trim() || !org) return setFound(null);
    try {
      const result = await api<Schema<'UserListDto'>>('GET', `/management/v1/orgs/${enc(org)}/users${query({ query: term.trim(), limit: RESULTS })}`);
      if (mine !== latest.current) return;
      setError(null);
      setFound(result.users);
    } catch (e) {
      if (mine === latest.current) setError(e);
    }
  };

  useEffect(() => {
    const timer = setTimeout(() => void search(text, searchOrg), SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [text, searchOrg]);

  const choose = (user: ListedUser) => {
    setChosen(user);
    onChange(user.userId);
    setFound(null);
  };

  return (
    <fieldset class="user-picker">
      <legend>{t('user')}</legend>
      <div class="row">
        {!orgId && orgs.data && (
          <Select
            label={t('searchInOrganization')}
            value={searchOrg}
            onChange={setSearchOrg}
            options={orgs.data.orgs.map((o) => ({ value: o.id, label: o.name }))}
          />
        )}
        <label class="field">
          <span>{t('findUser')}</span>
          <input
            type="search"
            value={text}
            onInput={(e) => setText((e.currentTarget as HTMLInputElement).value)}
            onKeyDown={(e) => {
              // Enter searches at once instead of submitting the grant.
              if (e.key === 'Enter') {
                e.preventDefault();
                void search(text, searchOrg);
              }
            }}
          />
        </label>
        <Field
          label={t('userId')}
          value={userId}
          onInput={(value) => {
            setChosen(null);
            onChange(value);
          }}
          required
        />
      </div>
      {found && (
        <ul aria-label={t('matchingUsers')}>
          {found.length === 0 && <li>{t('noResults')}</li>}
          {found.map((user) => (
            <li key={user.userId}>
              <button type="button" onClick={() => choose(user)}>
                {t('chooseUser', { name: nameOf(user) })}
              </button>
            </li>
          ))}
        </ul>
      )}
      {chosen && chosen.userId === userId && (
        <p role="status" class="notice">
          {t('userChosen', { name: nameOf(chosen), id: chosen.userId })}
        </p>
      )}
      <ErrorMessage error={error} />
    </fieldset>
  );
}

function nameOf(user: ListedUser): string {
  return user.displayName ? `${user.displayName} (${user.userName})` : user.userName;
}
