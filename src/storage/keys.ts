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

/**
 * A stored file as records keep it: its path on the media route (`/media/<org>/<name>[.<ext>]`),
 * without any address, so that a move to another host or port changes no record (`extension` omitted:
 * the photo in the format the browser accepts).
 */
export function mediaReference(orgId: number, name: string, extension?: MediaExtension): string {
  return `/media/${orgId}/${name}${extension ? `.${extension}` : ''}`
}

/** The public URL of a stored file (`extension` omitted: the photo in the format the browser accepts). */
export function mediaUrl(baseUrl: string, orgId: number, name: string, extension?: MediaExtension): string {
  return `${baseUrl.replace(/\/+$/, '')}${mediaReference(orgId, name, extension)}`
}

/** Whether a stored value is a media reference, to be given the public address when it is read. */
export function isMediaReference(value: string): boolean {
  return value.startsWith('/media/')
}

/** A stored value as a reader gets it: a media reference with the public address before it; else as stored. */
export function absoluteMediaUrl(baseUrl: string, value: string): string {
  return isMediaReference(value) ? `${baseUrl.replace(/\/+$/, '')}${value}` : value
}

const REFERENCE_VALUE = Buffer.from('":"/media/')

/** Whether a JSON body holds a media reference that `withMediaBase` would complete. */
export function hasMediaReference(body: Buffer): boolean {
  return body.includes(REFERENCE_VALUE)
}

/**
 * A JSON body as the reader gets it: every string value that is a media reference (`"key":"/media/...`)
 * gets the public address before it. Stored read documents and kept bodies hold references, so the
 * same bytes serve every address the service is reached at, and a move needs no rebuild.
 */
export function withMediaBase(body: Buffer, baseUrl: string): Buffer {
  let at = body.indexOf(REFERENCE_VALUE)
  if (at === -1) return body
  const base = Buffer.from(JSON.stringify(baseUrl.replace(/\/+$/, '')).slice(1, -1))
  const pieces: Buffer[] = []
  let from = 0
  while (at !== -1) {
    const insertAt = at + 3
    pieces.push(body.subarray(from, insertAt), base)
    from = insertAt
    at = body.indexOf(REFERENCE_VALUE, insertAt)
  }
  pieces.push(body.subarray(from))
  return Buffer.concat(pieces)
}

/** The `<org id>/<name>` of every media URL in `text` (a stored record), for finding what is still used. */
export function mediaNamesIn(text: string): string[] {
  return [...text.matchAll(/\/media\/([1-9][0-9]{0,15})\/([0-9a-f]{32})\b/g)].map(
    (match) => `${match[1]}/${match[2]}`,
  )
}
