import sharp from 'sharp';
import { DomainError } from '../common/errors/domain-error.js';

/** At most 256 KB of image bytes (the decoded data URL, not its base64) and 1024 px a side (docs/branding.md, "Logo"). */
export const MAX_IMAGE_BYTES = 256 * 1024;
export const MAX_IMAGE_SIDE = 1024;

const DATA_URL = /^data:(image\/[a-z0-9.+-]+);base64,([A-Za-z0-9+/]*={0,2})$/;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * A logo or icon as a data URL (RFC 2397) of a PNG or WebP image, decoded and re-encoded as a fresh PNG: what is
 * served is never what was uploaded, so nothing hidden in the file (metadata, trailing bytes, a polyglot) survives.
 * SVG is refused before anything parses it (it is a document that can carry script). The image is decoded by sharp
 * (libvips): a maintained decoder of both formats; pure-JS PNG decoders (pngjs, upng) cannot read WebP.
 */
export async function reencodeImage(field: 'logo' | 'icon', value: unknown): Promise<Buffer | undefined> {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw DomainError.invalidField(field, `${field} must be a data URL of a PNG or WebP image`);
  const match = DATA_URL.exec(value);
  if (!match) throw DomainError.invalidField(field, `${field} must be a base64 data URL (data:image/png;base64,…)`);
  const [, type, data] = match;
  if (type.startsWith('image/svg')) throw DomainError.invalidField(field, `${field}: SVG is not accepted; send a PNG or WebP image`);
  if (type !== 'image/png' && type !== 'image/webp') throw DomainError.invalidField(field, `${field}: ${type} is not accepted; send a PNG or WebP image`);
  if ((data.length * 3) / 4 > MAX_IMAGE_BYTES + 3) throw tooLarge(field);
  const bytes = Buffer.from(data, 'base64');
  if (bytes.length > MAX_IMAGE_BYTES) throw tooLarge(field);
  if (!matchesType(bytes, type)) throw DomainError.invalidField(field, `${field}: the bytes are not a ${type} image`);
  try {
    const image = sharp(bytes, { limitInputPixels: MAX_IMAGE_SIDE * MAX_IMAGE_SIDE, failOn: 'error', animated: false });
    const meta = await image.metadata();
    if (meta.format !== 'png' && meta.format !== 'webp') throw DomainError.invalidField(field, `${field}: the bytes are not a PNG or WebP image`);
    if ((meta.width ?? 0) > MAX_IMAGE_SIDE || (meta.height ?? 0) > MAX_IMAGE_SIDE)
      throw DomainError.invalidField(field, `${field}: ${meta.width}×${meta.height} px is larger than ${MAX_IMAGE_SIDE} px a side`);
    return await image.png({ compressionLevel: 9 }).toBuffer();
  } catch (error) {
    if (error instanceof DomainError) throw error;
    throw DomainError.invalidField(field, `${field}: the image cannot be decoded`);
  }
}

function tooLarge(field: string): DomainError {
  return DomainError.invalidField(field, `${field}: more than ${MAX_IMAGE_BYTES / 1024} KB of image bytes`);
}

/** The file's own signature agrees with the type it claims (PNG §5.2; WebP is a RIFF container of form `WEBP`). */
function matchesType(bytes: Buffer, type: string): boolean {
  if (type === 'image/png') return bytes.subarray(0, 8).equals(PNG_SIGNATURE);
  return bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP';
}
