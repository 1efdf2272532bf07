/**
 * Names of passkey providers by the AAGUID their authenticator reports (WebAuthn Level 3 §6.1), for the
 * factor's name in `GET …/factors` and the console (so a person can tell its passkeys apart). A short list of the providers
 * people use most; browsers report an all-zero AAGUID for some authenticators when no attestation is
 * requested, and an unknown one gets the fallback name.
 */
const PROVIDERS: Record<string, string> = {
  'ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4': 'Google Password Manager',
  'adce0002-35bc-c60a-648b-0b25f1f05503': 'Chrome on Mac',
  'fbfc3007-154e-4ecc-8c0b-6e020557d7bd': 'iCloud Keychain',
  'dd4ec289-e01d-41c9-bb89-70fa845d4bf2': 'iCloud Keychain (Managed)',
  '08987058-cadc-4b81-b6e1-30de50dcbe96': 'Windows Hello',
  '9ddd1817-af5a-4672-a2b9-3e3dd95000a9': 'Windows Hello',
  '6028b017-b1d4-4c02-b4b3-afcdafc96bb2': 'Windows Hello',
  'bada5566-a7aa-401f-bd96-45619a55120d': '1Password',
  'd548826e-79b4-db40-a3d8-11116f7e8349': 'Bitwarden',
  '531126d6-e717-415c-9320-3d9aa6981239': 'Dashlane',
  '53414d53-554e-4700-0000-000000000000': 'Samsung Pass',
  'fdb141b2-5d84-443e-8a35-4698c205a502': 'KeePassXC',
};

/** The name a new passkey gets: its provider's when the AAGUID is known, else "Passkey" and the day it was added. */
export function passkeyName(aaguid: string | undefined, createdAt: Date): string {
  const known = aaguid === undefined ? undefined : PROVIDERS[aaguid.toLowerCase()];
  return known ?? fallbackPasskeyName(createdAt);
}

/** "Passkey (added 2026-11-25)": also the name shown for a passkey stored before passkeys were named. */
export function fallbackPasskeyName(createdAt: Date): string {
  return `Passkey (added ${createdAt.toISOString().slice(0, 10)})`;
}
