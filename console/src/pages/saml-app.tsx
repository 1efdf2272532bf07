import { useId, useRef, useState } from 'preact/hooks';
import { ApiError, api, enc } from '../api';
import type { Schema } from '../api';
import { CopyField, Form, Loading, useLoad } from '../components';
import { t } from '../i18n';

/**
 * SAML applications (docs/saml.md, "SAML applications"; docs/console.md): created from the service provider's pasted
 * metadata or from its settings, edited on the application's page, and the IdP signing certificate read from the
 * organization's metadata. A 400 names its fields in `details`; each problem shows beside the control it is about.
 */

/** An application as `GET …/apps/{appId}` reads it; a SAML one carries the fields below. */
type App = Schema<'AppDto'>;
type SamlAttribute = Schema<'SamlAttributeDto'>;
type NameIdFormat = NonNullable<App['nameIdFormat']>;
type AttributeSource = SamlAttribute['from'];
type NameFormat = NonNullable<SamlAttribute['nameFormat']>;

/** The form's choices in the order it shows them; `satisfies` keeps each one a value the API's document allows. */
export const NAME_ID_FORMATS = ['persistent', 'transient', 'emailAddress', 'unspecified'] as const satisfies readonly NameIdFormat[];
const ATTRIBUTE_SOURCES = [
  'userName',
  'email',
  'givenName',
  'familyName',
  'displayName',
  'groups',
  'roles',
  'userId',
] as const satisfies readonly AttributeSource[];
const NAME_FORMATS = ['basic', 'uri', 'unspecified'] as const satisfies readonly NameFormat[];

/**
 * The names of a SAML application's own settings: what `POST …/apps/saml` takes beside the application's fields and
 * the metadata that may fill them in. A setting the API adds or drops changes this type, and with it `SamlFields` and
 * `Draft`, so `draftOf` and `fieldsOf` stop compiling until the form has it.
 */
type SamlFieldName = Exclude<keyof Schema<'CreateSamlAppDto'>, 'name' | 'access' | 'homeUrl' | 'metadataXml' | 'metadataUrl'>;

/** A SAML application's own fields, as `GET …/apps/{appId}` reads them and `POST …/apps/saml` and `PATCH` take them. */
type SamlFields = Required<Pick<App, SamlFieldName>>;

interface AttributeRow {
  key: number;
  name: string;
  from: AttributeSource;
  nameFormat: NameFormat;
}

/** The settings the form edits as text: as typed (ACS URLs one per line, empty certificate, SLO URL or landing page for none). */
type TextFieldName = 'entityId' | 'acsUrls' | 'spCertificate' | 'sloUrl' | 'idpInitiatedRelayState';

/** What the form edits: the settings as their controls hold them. */
type Draft = Omit<SamlFields, TextFieldName | 'attributes'> & Record<TextFieldName, string> & { attributes: AttributeRow[] };

let rowKeys = 0;

/** The single sign-on sends an attribute without a name format as `basic` (src/saml/sso), so the form shows it so. */
function rowOf(attribute: SamlAttribute): AttributeRow {
  return { key: ++rowKeys, name: attribute.name, from: attribute.from, nameFormat: attribute.nameFormat ?? 'basic' };
}

function draftOf(app?: App): Draft {
  return {
    entityId: app?.entityId ?? '',
    acsUrls: (app?.acsUrls ?? []).join('\n'),
    nameIdFormat: app?.nameIdFormat ?? 'persistent',
    attributes: (app?.attributes ?? []).map(rowOf),
    signAssertion: app?.signAssertion ?? true,
    signResponse: app?.signResponse ?? true,
    encryptAssertion: app?.encryptAssertion ?? false,
    spCertificate: app?.spCertificate ?? '',
    requireSignedRequests: app?.requireSignedRequests ?? false,
    sloUrl: app?.sloUrl ?? '',
    allowIdpInitiated: app?.allowIdpInitiated ?? false,
    idpInitiatedRelayState: app?.idpInitiatedRelayState ?? '',
  };
}

/** One URL a line: a URL may hold a comma (a query), so commas do not split. */
function urlLines(text: string): string[] {
  return text
    .split('\n')
    .map((s) => s.trim())
    .filter(Boolean);
}

function attributesOf(rows: AttributeRow[]): SamlAttribute[] {
  return rows.map((row) => ({ name: row.name.trim(), from: row.from, nameFormat: row.nameFormat }));
}

function fieldsOf(draft: Draft): SamlFields {
  return {
    entityId: draft.entityId.trim(),
    acsUrls: urlLines(draft.acsUrls),
    nameIdFormat: draft.nameIdFormat,
    attributes: attributesOf(draft.attributes),
    signAssertion: draft.signAssertion,
    signResponse: draft.signResponse,
    encryptAssertion: draft.encryptAssertion,
    spCertificate: draft.spCertificate.trim() || null,
    requireSignedRequests: draft.requireSignedRequests,
    sloUrl: draft.sloUrl.trim() || null,
    allowIdpInitiated: draft.allowIdpInitiated,
    idpInitiatedRelayState: draft.idpInitiatedRelayState.trim() || null,
  };
}

/** Every setting's name, from the fields the form sends (`fieldsOf` has to return each one). */
const FIELD_NAMES = Object.keys(fieldsOf(draftOf())) as SamlFieldName[];

/** The application's fields as the form would send them unchanged (a stored attribute without a format is `basic`). */
function storedFieldsOf(app: App): SamlFields {
  return { ...fieldsOf(draftOf(app)), attributes: (app.attributes ?? []).map((a) => ({ name: a.name, from: a.from, nameFormat: a.nameFormat ?? 'basic' })) };
}

/** A PATCH body with only what changed; a certificate, SLO URL or landing page emptied is sent as null (removed). */
function samlChanges(app: App, name: string, draft: Draft): Record<string, unknown> {
  const before = storedFieldsOf(app);
  const after = fieldsOf(draft);
  const body: Record<string, unknown> = {};
  if (name.trim() !== app.name) body.name = name.trim();
  for (const field of FIELD_NAMES) if (JSON.stringify(after[field]) !== JSON.stringify(before[field])) body[field] = after[field];
  return body;
}

/** Problems by field (`entityId`, `acsUrls.0`, `attributes.1.name`, …); a 409 (entity id taken) goes to `conflictField`. */
type Problems = Record<string, string[]>;

function problemsOf(error: unknown, conflictField: string): Problems {
  if (!(error instanceof ApiError)) return {};
  if (error.status === 409) return { [conflictField]: [error.message] };
  if (error.status !== 400) return {};
  const problems: Problems = {};
  for (const detail of error.details) {
    const { field, message } = (detail ?? {}) as { field?: unknown; message?: unknown };
    if (typeof field !== 'string' || typeof message !== 'string') continue;
    (problems[field] ??= []).push(message);
  }
  return problems;
}

/**
 * Where each problem shows: a field the form has keeps its own; any other (a value the metadata supplied, when the
 * metadata was pasted) goes to `fallback`, named.
 */
function placed(problems: Problems, shown: (field: string) => boolean, fallback: string): Problems {
  const out: Problems = {};
  for (const [field, messages] of Object.entries(problems)) {
    if (shown(field)) (out[field] ??= []).push(...messages);
    else
      (out[fallback] ??= []).push(
        ...messages.map((message) => (fallback === 'metadataXml' ? t('problemInMetadata', { field, message }) : `${field}: ${message}`)),
      );
  }
  return out;
}

/** The problems of `field` and, with `lines`, of its numbered entries (`acsUrls.0` is line 1). */
function messagesFor(problems: Problems, field: string, lines = false): string[] {
  const own = problems[field] ?? [];
  if (!lines) return own;
  const entries = Object.entries(problems)
    .filter(([key]) => key.startsWith(`${field}.`) && /^\d+$/.test(key.slice(field.length + 1)))
    .flatMap(([key, messages]) => messages.map((message) => t('problemOnLine', { n: String(Number(key.slice(field.length + 1)) + 1), message })));
  return [...own, ...entries];
}

/** A control with its problems below it, tied to it by aria-describedby (and `data-field-error` for tests). */
function Problem({ id, field, messages }: { id: string; field: string; messages: string[] }) {
  if (messages.length === 0) return null;
  return (
    <p class="error" id={id} data-field-error={field}>
      {messages.join('; ')}
    </p>
  );
}

function invalid(id: string, messages: string[]) {
  return messages.length > 0 ? { 'aria-invalid': 'true' as const, 'aria-describedby': id } : {};
}

function TextControl({
  label,
  field,
  value,
  onInput,
  problems,
  rows,
  required,
  wide,
}: {
  label: string;
  field: string;
  value: string;
  onInput: (v: string) => void;
  problems: string[];
  rows?: number;
  required?: boolean;
  wide?: boolean;
}) {
  const id = useId();
  const read = (e: Event) => onInput((e.currentTarget as HTMLInputElement | HTMLTextAreaElement).value);
  return (
    <div class={wide ? 'field-box wide' : 'field-box'}>
      <label class="field">
        <span>{label}</span>
        {rows ? (
          <textarea
            rows={rows}
            value={value}
            onInput={read}
            data-field={field}
            spellcheck={false}
            {...invalid(id, problems)}
            class={wide ? 'mono' : undefined}
          />
        ) : (
          <input type="text" value={value} onInput={read} data-field={field} required={required} {...invalid(id, problems)} />
        )}
      </label>
      <Problem id={id} field={field} messages={problems} />
    </div>
  );
}

function SelectControl<T extends string>({
  label,
  field,
  value,
  options,
  onChange,
  problems,
}: {
  label: string;
  field: string;
  value: T;
  options: readonly T[];
  onChange: (v: T) => void;
  problems: string[];
}) {
  const id = useId();
  return (
    <div class="field-box">
      <label class="field">
        <span>{label}</span>
        <select value={value} data-field={field} onChange={(e) => onChange((e.currentTarget as HTMLSelectElement).value as T)} {...invalid(id, problems)}>
          {options.map((o) => (
            <option key={o} value={o}>
              {o}
            </option>
          ))}
        </select>
      </label>
      <Problem id={id} field={field} messages={problems} />
    </div>
  );
}

function CheckControl({
  label,
  field,
  checked,
  onChange,
  problems,
}: {
  label: string;
  field: string;
  checked: boolean;
  onChange: (v: boolean) => void;
  problems: string[];
}) {
  const id = useId();
  return (
    <div class="field-box">
      <label class="check">
        <input
          type="checkbox"
          checked={checked}
          data-field={field}
          onChange={(e) => onChange((e.currentTarget as HTMLInputElement).checked)}
          {...invalid(id, problems)}
        />
        <span>{label}</span>
      </label>
      <Problem id={id} field={field} messages={problems} />
    </div>
  );
}

/** The attribute mappings: a group per attribute (name, source, name format), added and removed in the form. */
function AttributeRows({ rows, onChange, problems }: { rows: AttributeRow[]; onChange: (rows: AttributeRow[]) => void; problems: Problems }) {
  const id = useId();
  // The list's own problems, and any about an attribute that no control below shows (a whole entry, say).
  const shown = new Set(rows.flatMap((_, i) => ['name', 'from', 'nameFormat'].map((part) => `attributes.${i}.${part}`)));
  const own = Object.entries(problems)
    .filter(([field]) => field === 'attributes' || (field.startsWith('attributes.') && !shown.has(field)))
    .flatMap(([field, messages]) => (field === 'attributes' ? messages : messages.map((message) => `${field}: ${message}`)));
  const set = (i: number, change: Partial<AttributeRow>) => onChange(rows.map((row, j) => (j === i ? { ...row, ...change } : row)));
  return (
    <fieldset class="stack" data-field="attributes" aria-describedby={own.length > 0 ? id : undefined}>
      <legend>{t('samlAttributes')}</legend>
      {rows.length === 0 && <p class="muted">{t('noSamlAttributes')}</p>}
      {rows.map((row, i) => (
        <fieldset key={row.key} class="attribute" data-attribute-row={String(i)}>
          <legend>{t('attributeNumber', { n: String(i + 1) })}</legend>
          <TextControl
            label={t('attributeName')}
            field={`attributes.${i}.name`}
            value={row.name}
            onInput={(name) => set(i, { name })}
            problems={messagesFor(problems, `attributes.${i}.name`)}
            required
          />
          <SelectControl
            label={t('attributeFrom')}
            field={`attributes.${i}.from`}
            value={row.from}
            options={ATTRIBUTE_SOURCES}
            onChange={(from) => set(i, { from })}
            problems={messagesFor(problems, `attributes.${i}.from`)}
          />
          <SelectControl
            label={t('attributeNameFormat')}
            field={`attributes.${i}.nameFormat`}
            value={row.nameFormat}
            options={NAME_FORMATS}
            onChange={(nameFormat) => set(i, { nameFormat })}
            problems={messagesFor(problems, `attributes.${i}.nameFormat`)}
          />
          <button type="button" onClick={() => onChange(rows.filter((_, j) => j !== i))}>
            {t('removeAttribute', { n: String(i + 1) })}
          </button>
        </fieldset>
      ))}
      <button type="button" onClick={() => onChange([...rows, { key: ++rowKeys, name: '', from: 'email', nameFormat: 'basic' }])}>
        {t('addAttribute')}
      </button>
      <Problem id={id} field="attributes" messages={own} />
    </fieldset>
  );
}

/** The settings of a service provider (everything but its name and the attributes). */
function SettingControls({ draft, set, problems }: { draft: Draft; set: (change: Partial<Draft>) => void; problems: Problems }) {
  return (
    <>
      <TextControl
        label={t('spEntityId')}
        field="entityId"
        value={draft.entityId}
        onInput={(entityId) => set({ entityId })}
        problems={messagesFor(problems, 'entityId')}
        wide
      />
      <TextControl
        label={t('acsUrls')}
        field="acsUrls"
        value={draft.acsUrls}
        onInput={(acsUrls) => set({ acsUrls })}
        problems={messagesFor(problems, 'acsUrls', true)}
        rows={3}
        wide
      />
      <SelectControl
        label={t('nameIdFormat')}
        field="nameIdFormat"
        value={draft.nameIdFormat}
        options={NAME_ID_FORMATS}
        onChange={(nameIdFormat) => set({ nameIdFormat })}
        problems={messagesFor(problems, 'nameIdFormat')}
      />
      <CheckControl
        label={t('signAssertion')}
        field="signAssertion"
        checked={draft.signAssertion}
        onChange={(signAssertion) => set({ signAssertion })}
        problems={messagesFor(problems, 'signAssertion')}
      />
      <CheckControl
        label={t('signResponse')}
        field="signResponse"
        checked={draft.signResponse}
        onChange={(signResponse) => set({ signResponse })}
        problems={messagesFor(problems, 'signResponse')}
      />
      <CheckControl
        label={t('encryptAssertion')}
        field="encryptAssertion"
        checked={draft.encryptAssertion}
        onChange={(encryptAssertion) => set({ encryptAssertion })}
        problems={messagesFor(problems, 'encryptAssertion')}
      />
      <TextControl
        label={t('spCertificate')}
        field="spCertificate"
        value={draft.spCertificate}
        onInput={(spCertificate) => set({ spCertificate })}
        problems={messagesFor(problems, 'spCertificate')}
        rows={6}
        wide
      />
      <CheckControl
        label={t('requireSignedRequests')}
        field="requireSignedRequests"
        checked={draft.requireSignedRequests}
        onChange={(requireSignedRequests) => set({ requireSignedRequests })}
        problems={messagesFor(problems, 'requireSignedRequests')}
      />
      <TextControl
        label={t('sloUrl')}
        field="sloUrl"
        value={draft.sloUrl}
        onInput={(sloUrl) => set({ sloUrl })}
        problems={messagesFor(problems, 'sloUrl')}
        wide
      />
      <CheckControl
        label={t('allowIdpInitiated')}
        field="allowIdpInitiated"
        checked={draft.allowIdpInitiated}
        onChange={(allowIdpInitiated) => set({ allowIdpInitiated })}
        problems={messagesFor(problems, 'allowIdpInitiated')}
      />
      <TextControl
        label={t('idpInitiatedRelayState')}
        field="idpInitiatedRelayState"
        value={draft.idpInitiatedRelayState}
        onInput={(idpInitiatedRelayState) => set({ idpInitiatedRelayState })}
        problems={messagesFor(problems, 'idpInitiatedRelayState')}
        wide
      />
    </>
  );
}

function useDraft(app?: App) {
  const [draft, setDraft] = useState<Draft>(() => draftOf(app));
  const set = (change: Partial<Draft>) => setDraft((d) => ({ ...d, ...change }));
  return { draft, set };
}

const rootOf = (field: string) => field.split('.')[0];

/**
 * `POST …/apps/saml`: the name and either the SP's metadata (the API takes entity id, ACS URLs, SLO URL, certificate
 * and signing wishes from it) or the settings typed in; the attributes either way. The new application's id goes to
 * `onCreated` (its page shows what to hand to the service provider).
 */
export function CreateSamlApp({ base, onCreated, onCancel }: { base: string; onCreated: (appId: string) => void; onCancel: () => void }) {
  const radios = useId();
  const [name, setName] = useState('');
  const [source, setSource] = useState<'metadata' | 'fields'>('metadata');
  const [metadataXml, setMetadataXml] = useState('');
  const { draft, set } = useDraft();
  const [problems, setProblems] = useState<Problems>({});
  const created = useRef('');
  const fromMetadata = source === 'metadata';
  const create = async () => {
    setProblems({});
    const attributes = attributesOf(draft.attributes);
    let body: Record<string, unknown>;
    if (fromMetadata) body = { name, metadataXml, ...(attributes.length > 0 ? { attributes } : {}) };
    else {
      // Nothing for an empty certificate, SLO URL or landing page: none is the default.
      const fields: Partial<SamlFields> = fieldsOf(draft);
      if (fields.spCertificate === null) delete fields.spCertificate;
      if (fields.sloUrl === null) delete fields.sloUrl;
      if (fields.idpInitiatedRelayState === null) delete fields.idpInitiatedRelayState;
      body = { name, ...fields };
    }
    try {
      created.current = (await api<Schema<'SamlAppCreatedDto'>>('POST', `${base}/apps/saml`, body)).appId;
    } catch (error) {
      const shown = fromMetadata ? ['name', 'metadataXml', 'attributes'] : ['name', ...FIELD_NAMES];
      setProblems(
        placed(problemsOf(error, fromMetadata ? 'metadataXml' : 'entityId'), (field) => shown.includes(rootOf(field)), fromMetadata ? 'metadataXml' : 'other'),
      );
      throw error;
    }
  };
  return (
    <section class="panel" aria-labelledby="new-saml-heading" data-saml-form="create">
      <h2 id="new-saml-heading">{t('newSamlApp')}</h2>
      <Form label={t('newSamlApp')} submit={t('createApplication')} action={create} onDone={() => onCreated(created.current)}>
        <div class="stack">
          <NameControl value={name} onInput={setName} problems={messagesFor(problems, 'name')} />
          <fieldset data-field="source">
            <legend>{t('spSource')}</legend>
            <label class="check">
              <input type="radio" name={radios} value="metadata" checked={fromMetadata} onChange={() => setSource('metadata')} />
              <span>{t('fromMetadata')}</span>
            </label>
            <label class="check">
              <input type="radio" name={radios} value="fields" checked={!fromMetadata} onChange={() => setSource('fields')} />
              <span>{t('fromFields')}</span>
            </label>
          </fieldset>
          {fromMetadata ? (
            <TextControl
              label={t('spMetadataXml')}
              field="metadataXml"
              value={metadataXml}
              onInput={setMetadataXml}
              problems={messagesFor(problems, 'metadataXml')}
              rows={10}
              wide
            />
          ) : (
            <SettingControls draft={draft} set={set} problems={problems} />
          )}
          <AttributeRows rows={draft.attributes} onChange={(attributes) => set({ attributes })} problems={problems} />
          <OtherProblems messages={messagesFor(problems, 'other')} />
        </div>
      </Form>
      <button type="button" onClick={onCancel}>
        {t('cancel')}
      </button>
    </section>
  );
}

function NameControl({ value, onInput, problems }: { value: string; onInput: (v: string) => void; problems: string[] }) {
  return <TextControl label={t('name')} field="name" value={value} onInput={onInput} problems={problems} required />;
}

/** Problems of fields the form does not show (none expected; shown rather than lost). */
function OtherProblems({ messages }: { messages: string[] }) {
  if (messages.length === 0) return null;
  return (
    <ul class="error" data-field-error="other">
      {messages.map((m) => (
        <li key={m}>{m}</li>
      ))}
    </ul>
  );
}

/** `PATCH …/apps/{appId}` with the fields that changed (none changed: nothing is sent). */
export function EditSamlApp({ path, app, onDone, onCancel }: { path: string; app: App; onDone: (changed: boolean) => void; onCancel: () => void }) {
  const [name, setName] = useState(app.name);
  const { draft, set } = useDraft(app);
  const [problems, setProblems] = useState<Problems>({});
  const changed = useRef(false);
  const save = async () => {
    setProblems({});
    const body = samlChanges(app, name, draft);
    changed.current = Object.keys(body).length > 0;
    if (!changed.current) return;
    try {
      await api('PATCH', path, body);
    } catch (error) {
      setProblems(placed(problemsOf(error, 'entityId'), (field) => ['name', ...FIELD_NAMES].includes(rootOf(field)), 'other'));
      throw error;
    }
  };
  return (
    <div data-saml-form="edit">
      <Form label={t('editApplication')} submit={t('save')} action={save} onDone={() => onDone(changed.current)}>
        <div class="stack">
          <NameControl value={name} onInput={setName} problems={messagesFor(problems, 'name')} />
          <SettingControls draft={draft} set={set} problems={problems} />
          <AttributeRows rows={draft.attributes} onChange={(attributes) => set({ attributes })} problems={problems} />
          <OtherProblems messages={messagesFor(problems, 'other')} />
        </div>
      </Form>
      <button type="button" onClick={onCancel}>
        {t('cancel')}
      </button>
    </div>
  );
}

/** What is configured, at a glance (the edit form changes it). */
export function SamlSettings({ app }: { app: App }) {
  const yesNo = (value: boolean | undefined) => (value ? t('yes') : t('no'));
  return (
    <dl class="facts" data-saml-settings>
      <dt>{t('nameIdFormat')}</dt>
      <dd data-setting="nameIdFormat">{app.nameIdFormat}</dd>
      <dt>{t('samlAttributes')}</dt>
      <dd data-setting="attributes">
        {(app.attributes ?? []).length === 0 ? (
          t('noSamlAttributes')
        ) : (
          <ul class="plain mono">
            {(app.attributes ?? []).map((a) => (
              <li key={a.name}>
                {a.name} ← {a.from} ({a.nameFormat ?? 'basic'})
              </li>
            ))}
          </ul>
        )}
      </dd>
      <dt>{t('signAssertion')}</dt>
      <dd data-setting="signAssertion">{yesNo(app.signAssertion)}</dd>
      <dt>{t('signResponse')}</dt>
      <dd data-setting="signResponse">{yesNo(app.signResponse)}</dd>
      <dt>{t('encryptAssertion')}</dt>
      <dd data-setting="encryptAssertion">{yesNo(app.encryptAssertion)}</dd>
      <dt>{t('spCertificateShort')}</dt>
      <dd data-setting="spCertificate">{app.spCertificate ? t('certificateSet') : t('notSet')}</dd>
      <dt>{t('signedRequests')}</dt>
      <dd data-setting="requireSignedRequests">{yesNo(app.requireSignedRequests)}</dd>
      <dt>{t('singleLogoutUrl')}</dt>
      <dd data-setting="sloUrl" class={app.sloUrl ? 'mono' : 'muted'}>
        {app.sloUrl ?? t('notSet')}
      </dd>
      <dt>{t('idpInitiated')}</dt>
      <dd data-setting="allowIdpInitiated">{yesNo(app.allowIdpInitiated)}</dd>
      <dt>{t('idpInitiatedLanding')}</dt>
      <dd data-setting="idpInitiatedRelayState" class={app.idpInitiatedRelayState ? 'mono' : 'muted'}>
        {app.idpInitiatedRelayState ?? t('notSet')}
      </dd>
    </dl>
  );
}

const DSIG = 'http://www.w3.org/2000/09/xmldsig#';
const METADATA = 'urn:oasis:names:tc:SAML:2.0:metadata';

interface IdpCertificate {
  pem: string;
  fingerprint?: string;
}

/**
 * The signing certificates of the organization's IdP metadata (`GET /saml/v2/{orgId}/metadata`, public, this origin),
 * in their order: the first signs now; during a rotation the next one, or the one it replaced, follows.
 */
async function idpCertificates(orgId: string): Promise<IdpCertificate[]> {
  const res = await fetch(`/saml/v2/${enc(orgId)}/metadata`);
  if (!res.ok) throw new Error(t('idpMetadataUnreadable', { status: String(res.status) }));
  const doc = new DOMParser().parseFromString(await res.text(), 'application/xml');
  if (doc.getElementsByTagName('parsererror').length > 0) throw new Error(t('idpMetadataUnreadable', { status: 'XML' }));
  const signing = Array.from(doc.getElementsByTagNameNS(METADATA, 'KeyDescriptor')).filter((k) => (k.getAttribute('use') ?? 'signing') === 'signing');
  const base64 = signing.flatMap((k) => Array.from(k.getElementsByTagNameNS(DSIG, 'X509Certificate')).map((c) => (c.textContent ?? '').replace(/\s+/g, '')));
  return Promise.all(base64.filter(Boolean).map(async (b64) => ({ pem: pemOf(b64), fingerprint: await fingerprintOf(b64) })));
}

function pemOf(base64: string): string {
  return `-----BEGIN CERTIFICATE-----\n${base64.match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`;
}

/** SHA-256 over the DER, as `openssl x509 -fingerprint -sha256` shows it; none where Web Crypto is not offered (plain http to a host other than localhost). */
async function fingerprintOf(base64: string): Promise<string | undefined> {
  if (!globalThis.crypto?.subtle) return undefined;
  const der = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', der));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0').toUpperCase()).join(':');
}

/** The certificate that signs the organization's responses now, to hand to a service provider that takes no metadata. */
export function IdpCertificatePanel({ orgId }: { orgId: string }) {
  const certificates = useLoad(() => idpCertificates(orgId), [orgId]);
  return (
    <section class="panel" aria-labelledby="idp-certificate-heading" data-idp-certificate>
      <h2 id="idp-certificate-heading">{t('idpCertificate')}</h2>
      <Loading loaded={certificates}>
        {(list) =>
          list.length === 0 ? (
            <p>{t('idpNoCertificate')}</p>
          ) : (
            <>
              <CopyField label={t('idpCertificatePem')} value={list[0].pem} multiline />
              {list[0].fingerprint && <CopyField label={t('idpCertificateFingerprint')} value={list[0].fingerprint} />}
              {list.length > 1 && <p data-idp-more-certificates={String(list.length - 1)}>{t('idpMoreCertificates', { count: String(list.length - 1) })}</p>}
            </>
          )
        }
      </Loading>
    </section>
  );
}
