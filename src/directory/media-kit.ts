import type { MediaStorage } from '../storage/storage.js'
import { plainText } from '../validation/html-text.js'
import { mediaAvailability } from './media-view.js'
import type { ProfileRead } from './pages.js'
import type { DirectoryUrls } from './urls.js'

/**
 * The media kit of an expert (CONTRACT §22): a page at `/directory/:corporation/:username/media-kit`
 * and its download, `.../media-kit.zip`. **Decision:** a ZIP (written by `fflate`) rather than one HTML
 * file, because a print photo is a file a newsroom places as it is: the ZIP holds the photo in its largest
 * stored size (the original, re-encoded as JPEG when stored) and `<username>.md`, the names, pronunciation,
 * pronouns and both biographies in Markdown. Its entries carry the profile's last change as their time,
 * so the same profile gives the same bytes.
 */

type Account = ProfileRead['account'][number]

/** The photo in its largest stored size: the original, else the largest rendition. */
function printPhoto(profile: ProfileRead): { url: string; width?: number; height?: number } | undefined {
  for (const size of ['o', 'l', 'm', 's'] as const) {
    const rendition = profile.avatar[size]
    if (rendition.url)
      return {
        url: rendition.url,
        ...(rendition.width ? { width: rendition.width } : {}),
        ...(rendition.height ? { height: rendition.height } : {}),
      }
  }
  return undefined
}

/** What the media kit page shows. */
export function mediaKitView(profile: ProfileRead, urls: DirectoryUrls) {
  const [account] = profile.account
  if (!account) throw new Error('The profile has no account element')
  const photo = printPhoto(profile)
  return {
    name: `${account.firstname} ${account.lastname}`.trim(),
    role: [account.job_title, account.department, account.company].filter(Boolean).join(', '),
    pronunciation: account.pronunciation,
    pronouns: account.pronouns,
    tagline: profile.tagline[0]?.tagline,
    biography: profile.biography[0]?.biography,
    preview: urls.media(profile.avatar.l.url ?? profile.avatar.m.url),
    photo: photo && { ...photo, url: urls.media(photo.url) },
    media: mediaAvailability(account),
    profileHref: urls.expert(account.username),
    downloadHref: urls.mediaKit(account.username, true),
    calendarHref: urls.calendar(account.username),
  }
}

/** Paragraphs of a stored (sanitized) HTML biography as plain text. */
function paragraphs(html: string): string {
  return html
    .split(/<\/(?:p|li|h[1-6]|blockquote)>|<br\s*\/?>/i)
    .map((part) => plainText(part).trim())
    .filter(Boolean)
    .join('\n\n')
}

/** The kit's text file: names, how to say and refer to them, and the two biographies. */
export function mediaKitMarkdown(profile: ProfileRead, account: Account, profileUrl: string): string {
  const name = `${account.firstname} ${account.lastname}`.trim()
  const lines = [`# ${name}`, '']
  const role = [account.job_title, account.department, account.company].filter(Boolean).join(', ')
  if (role) lines.push(role, '')
  if (account.pronunciation) lines.push(`- Pronunciation: ${account.pronunciation}`)
  if (account.pronouns) lines.push(`- Pronouns: ${account.pronouns}`)
  lines.push(`- Profile: ${profileUrl}`, '')
  const tagline = profile.tagline[0]?.tagline
  if (tagline) lines.push('## Short biography', '', tagline, '')
  const biography = profile.biography[0]?.biography
  if (biography) lines.push('## Biography', '', paragraphs(biography), '')
  return `${lines.join('\n').trimEnd()}\n`
}

/** The storage key of a stored photo reference (`/media/<org>/<name>[.<ext>]`), as JPEG when the reference names no format. */
function storageKey(reference: string): string | undefined {
  const match = /^\/media\/([1-9][0-9]{0,15})\/([0-9a-f]{32})(?:\.(jpg|png|webp))?$/.exec(reference)
  return match ? `${match[1]}/${match[2]}.${match[3] ?? 'jpg'}` : undefined
}

async function readAll(storage: MediaStorage, key: string): Promise<Buffer | undefined> {
  const opened = await storage.open(key)
  if (!opened) return undefined
  const chunks: Buffer[] = []
  for await (const chunk of opened.body) chunks.push(Buffer.from(chunk))
  return Buffer.concat(chunks)
}

/** The ZIP of the kit: `<username>.md` and, when the photo is stored here, `<username>.<ext>`. */
export async function mediaKitZip(
  profile: ProfileRead,
  storage: MediaStorage,
  profileUrl: string,
  modified: number,
): Promise<Buffer> {
  const [account] = profile.account
  if (!account) throw new Error('The profile has no account element')
  // Loaded with the first download (docs/performance.md, "Idle memory").
  const { strToU8, zipSync } = await import('fflate')
  const mtime = new Date(modified * 1000)
  const files: Record<string, [Uint8Array, { mtime: Date; level: 0 | 6 }]> = {
    [`${account.username}.md`]: [
      strToU8(mediaKitMarkdown(profile, account, profileUrl)),
      { mtime, level: 6 },
    ],
  }
  const photo = printPhoto(profile)
  const key = photo && storageKey(photo.url)
  const bytes = key && (await readAll(storage, key))
  // Images are compressed already: stored as they are.
  if (key && bytes) files[`${account.username}.${key.split('.').pop()}`] = [bytes, { mtime, level: 0 }]
  return Buffer.from(zipSync(files))
}
