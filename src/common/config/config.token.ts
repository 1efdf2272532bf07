/** Injection token under which the validated AppConfig is provided. */
export const APP_CONFIG = Symbol('APP_CONFIG');
