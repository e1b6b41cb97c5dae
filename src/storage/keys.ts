import { createHmac } from 'node:crypto'

/** The file types the media storage holds, by the extension of their key. */
export const MEDIA_TYPES = {
  webp: 'image/webp',
  jpg: 'image/jpeg',
  png: 'image/png',
  pdf: 'application/pdf',
} as const

export type MediaExtension = keyof typeof MEDIA_TYPES

const EXTENSIONS = Object.keys(MEDIA_TYPES).join('|')

/** `<org id>/<32 hex>.<ext>`: the only keys a storage accepts, so no key can leave its folder or prefix. */
export const MEDIA_KEY = new RegExp(`^([1-9][0-9]{0,15})/([0-9a-f]{32})\\.(${EXTENSIONS})$`)

export function isMediaExtension(value: string): value is MediaExtension {
  return Object.hasOwn(MEDIA_TYPES, value)
}

export function mediaKey(orgId: number, name: string, extension: MediaExtension): string {
  return `${orgId}/${name}.${extension}`
}

/**
 * A file's name: 128 bits of an HMAC-SHA256 of its bytes, keyed with a secret drawn for each upload.
 * It changes whenever the bytes change (caches never serve a stale photo), no two uploads share a
 * file (deleting one never takes another's), and it cannot be guessed: it is the only way to a
 * private expert's photo.
 */
export function contentName(uploadSecret: Buffer, bytes: Buffer): string {
  return createHmac('sha256', uploadSecret).update(bytes).digest('hex').slice(0, 32)
}

/** The public URL of a stored file (`extension` omitted: the photo in the format the browser accepts). */
export function mediaUrl(baseUrl: string, orgId: number, name: string, extension?: MediaExtension): string {
  return `${baseUrl.replace(/\/+$/, '')}/media/${orgId}/${name}${extension ? `.${extension}` : ''}`
}

/** The `<org id>/<name>` of every media URL in `text` (a stored record), for finding what is still used. */
export function mediaNamesIn(text: string): string[] {
  return [...text.matchAll(/\/media\/([1-9][0-9]{0,15})\/([0-9a-f]{32})\b/g)].map(
    (match) => `${match[1]}/${match[2]}`,
  )
}
