import { In } from 'typeorm';
import type { EntityManager } from 'typeorm';
import type { JsonObject } from '../../common/database/columns.js';
import { isUniqueViolation } from '../../common/database/unique-violation.js';
import { DomainError } from '../../common/errors/domain-error.js';
import { ApplicationEntity } from '../entities/application.entity.js';
import { SamlApplicationEntity } from '../entities/saml-application.entity.js';
import type { NewSamlApplication } from '../saml-application.rules.js';

/** The SAML fields of an application, in the order of docs/saml.md's create request (the name is the application's). */
export const SAML_FIELDS = [
  'entityId',
  'acsUrls',
  'nameIdFormat',
  'attributes',
  'signAssertion',
  'signResponse',
  'encryptAssertion',
  'spCertificate',
  'requireSignedRequests',
  'sloUrl',
  'allowIdpInitiated',
  'idpInitiatedRelayState',
] as const satisfies readonly (keyof NewSamlApplication)[];

export type SamlSettings = Omit<NewSamlApplication, 'name'>;

/** Stores a SAML application's row; another application of the organization with that entity id is a 409. */
export async function insertSamlSettings(manager: EntityManager, appId: string, orgId: string, app: NewSamlApplication): Promise<void> {
  const { name: _name, ...settings } = app;
  try {
    await manager.insert(SamlApplicationEntity, { appId, orgId, ...settings });
  } catch (error) {
    throw isUniqueViolation(error) ? entityIdTaken(app.entityId) : error;
  }
}

/** Writes the changed SAML fields; the entity id of another application is a 409. */
export async function updateSamlSettings(manager: EntityManager, appId: string, changes: Partial<SamlSettings>): Promise<void> {
  if (Object.keys(changes).length === 0) return;
  try {
    await manager.update(SamlApplicationEntity, { appId }, changes);
  } catch (error) {
    throw isUniqueViolation(error) && changes.entityId !== undefined ? entityIdTaken(changes.entityId) : error;
  }
}

/** The SAML rows of these applications, by application id. */
export async function samlSettingsOf(manager: EntityManager, appIds: string[]): Promise<Map<string, SamlApplicationEntity>> {
  if (appIds.length === 0) return new Map();
  const rows = await manager.findBy(SamlApplicationEntity, { appId: In(appIds) });
  return new Map(rows.map((row) => [row.appId, row]));
}

/** What an application's events say of its SAML side: never the certificate (public, but long), only whether there is one. */
export function samlEventFields(app: Partial<NewSamlApplication>): JsonObject {
  const { spCertificate, name: _name, ...rest } = app;
  const fields = Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined)) as JsonObject;
  return spCertificate === undefined ? fields : { ...fields, spCertificate: spCertificate === null ? null : 'set' };
}

function entityIdTaken(entityId: string): DomainError {
  return DomainError.alreadyExists(`another SAML application of this organization has the entity id "${entityId}"`);
}

/** A SAML application as its single sign-on needs it: the service provider's settings and the hidden client it signs in through. */
export interface SamlServiceProvider extends SamlSettings {
  appId: string;
  orgId: string;
  name: string;
  clientId: string;
}

/** The SAML application of this organization with this entity id (an AuthnRequest's Issuer), or of this id. */
export async function samlServiceProvider(
  manager: EntityManager,
  where: { orgId: string; entityId: string } | { orgId?: string; appId: string },
): Promise<SamlServiceProvider | undefined> {
  const row = await manager.findOneBy(SamlApplicationEntity, where);
  const app = row && (await manager.findOneBy(ApplicationEntity, { id: row.appId }));
  if (!row || !app) return undefined;
  return { ...row, name: app.name, clientId: app.clientId };
}
