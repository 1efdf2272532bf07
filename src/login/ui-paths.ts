/** The login UI's pages: the sign-in of an interaction, `/ui/login/{uid}/…`, and the pages of mailed links. */
export const LOGIN_UI_PREFIX = '/ui/login';

/** The account page (docs/account.md), served by the login UI's router in the same session. */
export const ACCOUNT_UI_PREFIX = '/ui/account';

/** Where the provider sends the browser back once the account page's own sign-in is done. */
export const ACCOUNT_SIGNED_IN_PATH = `${ACCOUNT_UI_PREFIX}/signed-in`;

/** The signed-in person's own applications (docs/application-access.md, "My applications"), in the same session. */
export const APPS_UI_PATH = '/ui/apps';
