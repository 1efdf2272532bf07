/** A BCP 47 language tag as users' `preferredLanguage` accepts it (`en`, `de-CH`): what every surface checks. */
export const LANGUAGE_TAG = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;
