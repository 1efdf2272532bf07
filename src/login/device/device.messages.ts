import { textsOf } from '../../texts/texts.js';
import type { Texts } from '../../texts/texts.js';

const ARGUMENTS = {
  tooManyAttempts: ['minutes'],
  confirmQuestion: ['app', 'org'],
  success: ['app'],
} as const;

/** Texts of the device pages (RFC 8628 §3.3; `device.*` in src/texts/catalogs). */
export type DeviceMessages = Texts<'device', typeof ARGUMENTS>;

export const deviceMessages = textsOf('device', ARGUMENTS);
