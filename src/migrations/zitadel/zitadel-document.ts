import { flag, list, object, text, texts } from '../document-checks.js';
import type { Json } from '../document-checks.js';
import { DocumentFault, MAX_USERS_PER_REQUEST } from '../migration-plan.js';

/**
 * ZITADEL's export (`POST /admin/v1/export`, the `ExportDataResponse` of its admin API, or the `dataOrgs` of an
 * import request): `{orgs: [DataOrg]}` or `{dataOrgs: {orgs: [DataOrg]}}`, in protobuf's JSON mapping (lowerCamelCase
 * names, enums by name, a field at its default value left out). One organization per request: the command sends
 * each of the export's organizations as its own request. Checked whole: a field of the wrong type anywhere is a
 * DocumentFault naming its path, before anything is written.
 */
export function checkExport(document: unknown): { org: Json; index: number } {
  const root = object(document, 'document');
  const wrapped = root.dataOrgs !== undefined;
  const at = wrapped ? 'document.dataOrgs.orgs' : 'document.orgs';
  const orgs = list(wrapped ? object(root.dataOrgs, 'document.dataOrgs').orgs : root.orgs, at);
  if (orgs.length !== 1) throw new DocumentFault(at, `holds ${orgs.length} organizations: send one per request (portcullis import zitadel does)`);
  const org = object(orgs[0], `${at}[0]`);
  checkOrg(org, `${at}[0]`);
  return { org, index: 0 };
}

function checkOrg(org: Json, path: string): void {
  text(org.orgId, `${path}.orgId`, true);
  if (org.org !== undefined) text(object(org.org, `${path}.org`).name, `${path}.org.name`);
  const humans = list(org.humanUsers, `${path}.humanUsers`);
  const machines = list(org.machineUsers, `${path}.machineUsers`);
  if (humans.length + machines.length > MAX_USERS_PER_REQUEST)
    throw new DocumentFault(`${path}.humanUsers`, `holds more than ${MAX_USERS_PER_REQUEST} users: split the organization's users over several requests`);
  humans.forEach((item, i) => checkHuman(item, `${path}.humanUsers[${i}]`));
  machines.forEach((item, i) => {
    const at = `${path}.machineUsers[${i}]`;
    const machine = object(item, at);
    text(machine.userId, `${at}.userId`, true);
    const user = object(machine.user, `${at}.user`);
    text(user.userName, `${at}.user.userName`, true);
    for (const name of ['name', 'description', 'accessTokenType']) text(user[name], `${at}.user.${name}`);
  });
  list(org.projects, `${path}.projects`).forEach((item, i) => {
    const at = `${path}.projects[${i}]`;
    const project = object(item, at);
    text(project.projectId, `${at}.projectId`, true);
    const body = object(project.project, `${at}.project`);
    text(body.name, `${at}.project.name`, true);
    for (const name of ['projectRoleAssertion', 'projectRoleCheck', 'hasProjectCheck']) flag(body[name], `${at}.project.${name}`);
  });
  list(org.projectRoles, `${path}.projectRoles`).forEach((item, i) => {
    const at = `${path}.projectRoles[${i}]`;
    const role = object(item, at);
    text(role.projectId, `${at}.projectId`, true);
    text(role.roleKey, `${at}.roleKey`, true);
    for (const name of ['displayName', 'group']) text(role[name], `${at}.${name}`);
  });
  list(org.oidcApps, `${path}.oidcApps`).forEach((item, i) => checkOidcApp(item, `${path}.oidcApps[${i}]`));
  list(org.apiApps, `${path}.apiApps`).forEach((item, i) => {
    const at = `${path}.apiApps[${i}]`;
    const app = object(item, at);
    text(app.appId, `${at}.appId`, true);
    const body = object(app.app, `${at}.app`);
    text(body.projectId, `${at}.app.projectId`, true);
    text(body.name, `${at}.app.name`, true);
    text(body.authMethodType, `${at}.app.authMethodType`);
  });
  list(org.userGrants, `${path}.userGrants`).forEach((item, i) => {
    const at = `${path}.userGrants[${i}]`;
    const grant = object(item, at);
    text(grant.userId, `${at}.userId`, true);
    text(grant.projectId, `${at}.projectId`, true);
    text(grant.projectGrantId, `${at}.projectGrantId`);
    texts(grant.roleKeys, `${at}.roleKeys`);
  });
  list(org.orgMembers, `${path}.orgMembers`).forEach((item, i) => {
    const at = `${path}.orgMembers[${i}]`;
    const member = object(item, at);
    text(member.userId, `${at}.userId`, true);
    texts(member.roles, `${at}.roles`);
  });
}

function checkHuman(item: unknown, path: string): void {
  const human = object(item, path);
  text(human.userId, `${path}.userId`, true);
  const user = object(human.user, `${path}.user`);
  text(user.userName, `${path}.user.userName`, true);
  if (user.profile !== undefined) {
    const profile = object(user.profile, `${path}.user.profile`);
    for (const name of ['firstName', 'lastName', 'nickName', 'displayName', 'preferredLanguage', 'gender']) text(profile[name], `${path}.user.profile.${name}`);
  }
  if (user.email !== undefined) {
    const email = object(user.email, `${path}.user.email`);
    text(email.email, `${path}.user.email.email`);
    flag(email.isEmailVerified, `${path}.user.email.isEmailVerified`);
  }
  if (user.phone !== undefined) {
    const phone = object(user.phone, `${path}.user.phone`);
    text(phone.phone, `${path}.user.phone.phone`);
    flag(phone.isPhoneVerified, `${path}.user.phone.isPhoneVerified`);
  }
  if (user.hashedPassword !== undefined) {
    const hashed = object(user.hashedPassword, `${path}.user.hashedPassword`);
    text(hashed.value, `${path}.user.hashedPassword.value`);
    text(hashed.algorithm, `${path}.user.hashedPassword.algorithm`);
  }
  for (const name of ['password', 'otpCode']) text(user[name], `${path}.user.${name}`);
  for (const name of ['passwordChangeRequired', 'requestPasswordlessRegistration']) flag(user[name], `${path}.user.${name}`);
  list(user.idps, `${path}.user.idps`).forEach((idp, i) => object(idp, `${path}.user.idps[${i}]`));
}

function checkOidcApp(item: unknown, path: string): void {
  const app = object(item, path);
  text(app.appId, `${path}.appId`, true);
  const body = object(app.app, `${path}.app`);
  text(body.projectId, `${path}.app.projectId`, true);
  text(body.name, `${path}.app.name`, true);
  for (const name of ['redirectUris', 'responseTypes', 'grantTypes', 'postLogoutRedirectUris', 'additionalOrigins']) texts(body[name], `${path}.app.${name}`);
  for (const name of ['appType', 'authMethodType', 'version', 'accessTokenType', 'clockSkew', 'backChannelLogoutUri', 'loginVersion'])
    if (typeof body[name] !== 'object' || body[name] === null) text(body[name], `${path}.app.${name}`);
  for (const name of ['devMode', 'accessTokenRoleAssertion', 'idTokenRoleAssertion', 'idTokenUserinfoAssertion', 'skipNativeAppSuccessPage'])
    flag(body[name], `${path}.app.${name}`);
}
