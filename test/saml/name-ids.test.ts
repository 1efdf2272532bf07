import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { DOMParser, XMLSerializer } from '@xmldom/xmldom';
import { LoginClient } from '../attack/support/login-client.js';
import { PASSWORD } from '../oidc/support/oidc-fixtures.js';
import { createCaller, createOrg, searchEvents, unique, useService } from '../support/fixtures.js';
import { authnRequestXml, postedMessage, redirectQuery, SAML, SAMLP } from './support/saml-messages.js';
import { untilAnswered } from './support/saml-sign-in.js';

const ACS = 'http://127.0.0.1:9/saml/acs';
const FORMAT = {
  persistent: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
  transient: 'urn:oasis:names:tc:SAML:2.0:nameid-format:transient',
  emailAddress: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
  unspecified: 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified',
};
const INVALID_NAME_ID_POLICY = 'urn:oasis:names:tc:SAML:2.0:status:InvalidNameIDPolicy';

/**
 * Identifiers that do not leak (docs/saml.md, "NameID"): an e-mail address is asserted only once it is verified, a
 * persistent NameID is pairwise per service provider (SAML Core §8.3.7), and a NameIDPolicy asking for a format the
 * application does not give is answered InvalidNameIDPolicy (SAML Core §3.4.1.1) — each with no assertion.
 */
describe('SAML IdP: NameIDs and e-mail attributes', () => {
  const svc = useService();
  let org: { id: string; primaryDomain: string };
  let owner: { token: string };
  let projectId: string;

  before(async () => {
    org = await createOrg(svc);
    owner = await createCaller(svc, org.id, { org: ['ORG_OWNER'] });
    projectId = (await svc.api('POST', `/management/v1/orgs/${org.id}/projects`, { token: owner.token, body: { name: unique('saml') } })).body.id;
  });

  async function createSamlApp(fields: Record<string, unknown>): Promise<{ appId: string; entityId: string }> {
    const entityId = `https://${unique('sp')}.example.com/saml`;
    const res = await svc.api('POST', `/management/v1/orgs/${org.id}/projects/${projectId}/apps/saml`, {
      token: owner.token,
      body: { name: 'SP', entityId, acsUrls: [ACS], ...fields },
    });
    assert.equal(res.status, 201, res.text);
    return { appId: res.body.appId, entityId };
  }

  async function createUser(email: string, verified: boolean): Promise<{ userId: string; loginName: string }> {
    const userName = unique('user');
    const res = await svc.api('POST', `/management/v1/orgs/${org.id}/users/human`, {
      token: svc.adminToken,
      body: { userName, profile: { firstName: 'Ada', lastName: 'Lovelace' }, email: { email, isEmailVerified: verified }, password: PASSWORD },
    });
    assert.equal(res.status, 201, res.text);
    return { userId: res.body.userId, loginName: `${userName}@${org.primaryDomain}` };
  }

  /** Signs `user` in to the SP `entityId` (a new browser unless given) and returns what is posted to the ACS URL. */
  async function signIn(entityId: string, user: { loginName: string }, options: { nameIdFormat?: string; browser?: LoginClient } = {}): Promise<Document> {
    const browser = options.browser ?? new LoginClient(svc.url);
    const { xml } = authnRequestXml({
      issuer: entityId,
      destination: `${svc.config.publicUrl}/saml/v2/${org.id}/sso`,
      acsUrl: ACS,
      nameIdFormat: options.nameIdFormat,
    });
    const page = await untilAnswered(browser, await browser.get(`/saml/v2/${org.id}/sso?${redirectQuery(xml)}`), user.loginName);
    assert.equal(page.status, 200, page.text.slice(0, 400));
    const posted = postedMessage(page.text);
    assert.equal(posted.action, ACS);
    return new DOMParser().parseFromString(posted.xml, 'text/xml') as unknown as Document;
  }

  const statusOf = (doc: Document) => Array.from(doc.getElementsByTagNameNS(SAMLP, 'StatusCode')).map((code) => code.getAttribute('Value'));
  const nameIdOf = (doc: Document) => doc.getElementsByTagNameNS(SAML, 'NameID')[0]?.textContent ?? undefined;
  const assertions = (doc: Document) => doc.getElementsByTagNameNS(SAML, 'Assertion').length + doc.getElementsByTagNameNS(SAML, 'EncryptedAssertion').length;
  const attributes = (doc: Document) =>
    Array.from(doc.getElementsByTagNameNS(SAML, 'Attribute')).map((a) => [
      a.getAttribute('Name'),
      ...Array.from(a.getElementsByTagNameNS(SAML, 'AttributeValue')).map((v) => v.textContent),
    ]);
  const issued = async (userId: string) => ({
    sessions: Number((await svc.dataSource.query('SELECT COUNT(*) AS n FROM saml_sessions WHERE user_id = ?', [userId]))[0].n),
    events: (await searchEvents(svc, { event_types: ['user.saml.response.issued'], aggregate_id: userId })).length,
  });

  it('emailAddress NameID: two users who set the same unverified address both get InvalidNameIDPolicy, no assertion, nothing recorded', async () => {
    const app = await createSamlApp({ nameIdFormat: 'emailAddress' });
    const address = `ceo-${unique('x')}@corp.example`;
    const ceo = await createUser(address, false);
    const attacker = await createUser(address, false);
    for (const user of [ceo, attacker]) {
      const doc = await signIn(app.entityId, user);
      assert.equal(statusOf(doc).at(-1), INVALID_NAME_ID_POLICY);
      assert.equal(assertions(doc), 0);
      assert.ok(!new XMLSerializer().serializeToString(doc as never).includes(address));
      assert.deepEqual(await issued(user.userId), { sessions: 0, events: 0 });
    }
    const verified = await createUser(`${unique('v')}@corp.example`, true);
    const doc = await signIn(app.entityId, verified);
    assert.equal(statusOf(doc).at(-1), 'urn:oasis:names:tc:SAML:2.0:status:Success');
    assert.match(nameIdOf(doc) ?? '', /@corp\.example$/);
  });

  it('e-mail attributes carry only a verified address; an unverified one is left out', async () => {
    const app = await createSamlApp({
      nameIdFormat: 'transient',
      attributes: [
        { name: 'mail', from: 'email' },
        { name: 'uid', from: 'userName' },
      ],
    });
    const unverified = await createUser(`${unique('u')}@corp.example`, false);
    const withoutMail = await signIn(app.entityId, unverified);
    assert.deepEqual(attributes(withoutMail), [['uid', unverified.loginName]]);
    const address = `${unique('v')}@corp.example`;
    const verified = await createUser(address, true);
    assert.deepEqual(attributes(await signIn(app.entityId, verified)), [
      ['mail', address],
      ['uid', verified.loginName],
    ]);
  });

  it('persistent NameIDs are pairwise: stable at one SP, different at another and for another user, never the user id', async () => {
    const first = await createSamlApp({ nameIdFormat: 'persistent' });
    const second = await createSamlApp({ nameIdFormat: 'persistent' });
    const user = await createUser(`${unique('p')}@corp.example`, true);
    const other = await createUser(`${unique('q')}@corp.example`, true);
    const browser = new LoginClient(svc.url);
    const atFirst = nameIdOf(await signIn(first.entityId, user, { browser }));
    const again = nameIdOf(await signIn(first.entityId, user, { browser }));
    const atSecond = nameIdOf(await signIn(second.entityId, user, { browser }));
    const otherAtFirst = nameIdOf(await signIn(first.entityId, other));
    assert.ok(atFirst && atSecond && otherAtFirst);
    assert.equal(again, atFirst, 'the same SP sees the same NameID');
    assert.notEqual(atSecond, atFirst, 'two SPs cannot correlate the user');
    assert.notEqual(otherAtFirst, atFirst);
    for (const value of [atFirst, atSecond]) assert.ok(!value.includes(user.userId), value);
  });

  /**
   * Every NameIDPolicy format against every application setting (docs/saml.md, "NameID"): `transient` at every
   * application, `persistent` unless it is set to transient, `emailAddress` only where configured; no policy or
   * `unspecified` gets the configured format. A format not given is refused InvalidNameIDPolicy before any sign-in.
   */
  const GIVEN: Record<string, Record<string, keyof typeof FORMAT | 'refused'>> = {
    persistent: { none: 'persistent', unspecified: 'persistent', persistent: 'persistent', transient: 'transient', emailAddress: 'refused' },
    transient: { none: 'transient', unspecified: 'transient', persistent: 'refused', transient: 'transient', emailAddress: 'refused' },
    emailAddress: { none: 'emailAddress', unspecified: 'emailAddress', persistent: 'persistent', transient: 'transient', emailAddress: 'emailAddress' },
    unspecified: { none: 'unspecified', unspecified: 'unspecified', persistent: 'persistent', transient: 'transient', emailAddress: 'refused' },
  };
  for (const [setting, answers] of Object.entries(GIVEN)) {
    it(`an application set to ${setting}: each NameIDPolicy gets ${JSON.stringify(answers)}`, async () => {
      const app = await createSamlApp({ nameIdFormat: setting });
      const address = `${unique('m')}@corp.example`;
      const user = await createUser(address, true);
      const browser = new LoginClient(svc.url);
      const transients = new Set<string>();
      for (const [policy, expected] of Object.entries(answers)) {
        const requested = policy === 'none' ? undefined : FORMAT[policy as keyof typeof FORMAT];
        if (expected === 'refused') {
          const { xml } = authnRequestXml({
            issuer: app.entityId,
            destination: `${svc.config.publicUrl}/saml/v2/${org.id}/sso`,
            acsUrl: ACS,
            nameIdFormat: requested,
          });
          const page = await browser.get(`/saml/v2/${org.id}/sso?${redirectQuery(xml)}`);
          assert.equal(page.status, 200, `${policy}: answered at once, no sign-in: ${page.status} ${page.location ?? ''}`);
          const doc = new DOMParser().parseFromString(postedMessage(page.text).xml, 'text/xml') as unknown as Document;
          assert.equal(statusOf(doc).at(-1), INVALID_NAME_ID_POLICY, policy);
          assert.equal(assertions(doc), 0, policy);
          continue;
        }
        const doc = await signIn(app.entityId, { loginName: user.loginName }, { nameIdFormat: requested, browser });
        assert.equal(statusOf(doc).at(-1), 'urn:oasis:names:tc:SAML:2.0:status:Success', `${policy}: ${statusOf(doc).join(' ')}`);
        const nameId = doc.getElementsByTagNameNS(SAML, 'NameID')[0]!;
        assert.equal(nameId.getAttribute('Format'), FORMAT[expected], policy);
        const value = nameId.textContent ?? '';
        if (expected === 'emailAddress') assert.equal(value, address);
        if (expected === 'unspecified') assert.equal(value, user.loginName);
        if (expected === 'persistent' || expected === 'transient') assert.ok(!value.includes(user.userId) && !value.includes(address), value);
        if (expected === 'transient') {
          assert.ok(!transients.has(value), 'a fresh transient id per assertion');
          transients.add(value);
        }
        // What a LogoutRequest is matched against: the NameID this assertion carried, with its format.
        const [recorded] = (await svc.dataSource.query('SELECT name_id, name_id_format FROM saml_sessions WHERE user_id = ? AND name_id = ?', [
          user.userId,
          value,
        ])) as { name_id: string; name_id_format: string }[];
        assert.deepEqual(recorded, { name_id: value, name_id_format: FORMAT[expected] }, policy);
      }
      const events = await searchEvents(svc, { event_types: ['user.saml.response.issued'], aggregate_id: user.userId });
      const given = Object.values(answers).filter((answer) => answer !== 'refused');
      assert.deepEqual(events.map((event) => (event.payload as { nameIdFormat: string }).nameIdFormat).sort(), [...given].sort());
    });
  }

  it('persistent asked of an emailAddress application is the pairwise id: the same value at every sign-in to that SP', async () => {
    const user = await createUser(`${unique('t')}@corp.example`, true);
    const browser = new LoginClient(svc.url);
    const app = await createSamlApp({ nameIdFormat: 'emailAddress' });
    const first = nameIdOf(await signIn(app.entityId, user, { nameIdFormat: FORMAT.persistent, browser }));
    const again = nameIdOf(await signIn(app.entityId, user, { nameIdFormat: FORMAT.persistent, browser }));
    assert.ok(first);
    assert.equal(again, first);
  });
});
