import { useState } from 'preact/hooks';
import type { JSX } from 'preact';
import type { Schema } from '../api';
import { Checkbox, Field, Select, TextArea } from '../components';
import { t } from '../i18n';

/** An OIDC application's profile settings (docs/oauth-profiles.md), as `GET …/apps/{appId}` reads them. */
export type OauthProfiles = Pick<
  Schema<'AppDto'>,
  | 'requirePushedAuthorizationRequests'
  | 'requireSignedRequestObject'
  | 'requestObjectRequiresExp'
  | 'authorizationSignedResponseAlg'
  | 'dpopBoundAccessTokens'
  | 'backchannelLogoutUri'
  | 'backchannelLogoutSessionRequired'
  | 'jwks'
  | 'jwksUri'
  | 'subjectType'
>;

/** What the forms send; the key set goes as typed (keySet below), so it is any JSON value, not only a key set. */
type ProfileValues = Omit<Required<OauthProfiles>, 'jwks'> & { jwks: unknown };
type SubjectType = NonNullable<OauthProfiles['subjectType']>;
type Alg = '' | NonNullable<OauthProfiles['authorizationSignedResponseAlg']>;

/**
 * The profile settings' state and their fieldset, for the create and edit forms alike: `values` is what the API
 * takes (an empty URI or algorithm is null, "none" and "the instance's").
 */
export function useOauthProfiles(app: OauthProfiles = {}): { values: ProfileValues; fields: JSX.Element } {
  const [par, setPar] = useState(Boolean(app.requirePushedAuthorizationRequests));
  const [jar, setJar] = useState(Boolean(app.requireSignedRequestObject));
  const [jarExp, setJarExp] = useState(Boolean(app.requestObjectRequiresExp));
  const [alg, setAlg] = useState<Alg>((app.authorizationSignedResponseAlg ?? '') as Alg);
  const [dpop, setDpop] = useState(Boolean(app.dpopBoundAccessTokens));
  const [logoutUri, setLogoutUri] = useState(app.backchannelLogoutUri ?? '');
  const [logoutSid, setLogoutSid] = useState(Boolean(app.backchannelLogoutSessionRequired));
  const [jwks, setJwks] = useState(app.jwks ? JSON.stringify(app.jwks, null, 2) : '');
  const [jwksUri, setJwksUri] = useState(app.jwksUri ?? '');
  const [subjectType, setSubjectType] = useState<SubjectType>(app.subjectType ?? 'public');
  const values = {
    requirePushedAuthorizationRequests: par,
    requireSignedRequestObject: jar,
    requestObjectRequiresExp: jarExp,
    authorizationSignedResponseAlg: alg === '' ? null : alg,
    dpopBoundAccessTokens: dpop,
    backchannelLogoutUri: logoutUri.trim() === '' ? null : logoutUri.trim(),
    backchannelLogoutSessionRequired: logoutSid,
    jwks: keySet(jwks),
    jwksUri: jwksUri.trim() === '' ? null : jwksUri.trim(),
    subjectType,
  };
  const fields = (
    <fieldset data-oauth-profiles>
      <legend>{t('oauthProfiles')}</legend>
      <Checkbox label={t('requirePar')} checked={par} onChange={setPar} />
      <Checkbox label={t('requireSignedRequestObject')} checked={jar} onChange={setJar} />
      <Checkbox label={t('requestObjectRequiresExp')} checked={jarExp} onChange={setJarExp} />
      <Select
        label={t('jarmAlg')}
        value={alg}
        onChange={setAlg}
        options={[{ value: '', label: t('jarmAlgInstance') }, ...(['RS256', 'ES256', 'EdDSA'] as const).map((value) => ({ value, label: value }))]}
      />
      <Checkbox label={t('dpopBoundAccessTokens')} checked={dpop} onChange={setDpop} />
      <Field label={t('backchannelLogoutUri')} value={logoutUri} onInput={setLogoutUri} type="url" placeholder="https://app.example.com/backchannel-logout" />
      <Checkbox label={t('backchannelLogoutSessionRequired')} checked={logoutSid} onChange={setLogoutSid} />
      <TextArea label={t('jwks')} value={jwks} onInput={setJwks} rows={4} />
      <Field label={t('jwksUri')} value={jwksUri} onInput={setJwksUri} type="url" placeholder="https://app.example.com/jwks.json" />
      <Select
        label={t('subjectType')}
        value={subjectType}
        onChange={setSubjectType}
        options={[
          { value: 'public', label: t('subjectPublic') },
          { value: 'pairwise', label: t('subjectPairwise') },
        ]}
      />
    </fieldset>
  );
  return { values, fields };
}

/** The key set typed as JSON; text that is not JSON goes as it is, and the API's 400 names the field. */
function keySet(text: string): unknown {
  if (text.trim() === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
