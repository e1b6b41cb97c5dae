import type { Kysely } from 'kysely'
import { recordAudit } from '../audit/log.js'
import type { WriteContext } from '../audit/write-context.js'
import type { DB } from '../db/schema.js'
import { writeTransaction } from '../db/transactions.js'
import { profileChanged } from '../derived/changes.js'
import { notFound } from '../errors.js'
import { findExpert, findExpertForWrite } from '../experts/repository.js'
import type { WriteCondition } from '../experts/service.js'
import {
  deleteProfileItems,
  insertProfileItem,
  listSectionItems,
  updateProfileItem,
} from '../profiles/repository.js'
import { AVATAR_SIZES } from '../profiles/section-fields.js'
import { mediaReference } from '../storage/keys.js'
import { discardFiles, expertMediaKeys, forgetMediaFiles, recordMediaFiles } from '../storage/records.js'
import type { MediaStorage } from '../storage/storage.js'
import { type FocusPoint, photoRenditions, type RenditionName } from './images.js'
import type { ImageQueue } from './queue.js'
import { committedOrDiscarded, type FileToStore, storeFiles, uploadNamer } from './store.js'

/** Where photos and documents go, and how their image work is run. */
export interface MediaStore {
  storage: MediaStorage
  /** Told of a stored file that could not be deleted (`media gc` removes it later). */
  report: (error: unknown) => void
  /** The process's image queue (src/media/queue.ts): uploads wait their turn; without it, work runs at once. */
  images?: ImageQueue
}

/** What the upload routes need from the running app: its database and clock, and the media store. */
export interface MediaContext extends MediaStore {
  db: Kysely<DB>
  now: () => number
}

/** What a photo or document write takes: the write context and the media store. */
export type MediaWriteContext = WriteContext & MediaStore

/** Runs image work through the context's queue, when it has one. */
export function imageWork<T>(context: Pick<MediaStore, 'images'>, work: () => Promise<T>): Promise<T> {
  return context.images ? context.images.run(work) : work()
}

/** A stored rendition: its `url` is a media reference (`/media/...`); readers get it with the public address. */
export interface StoredRendition {
  url: string
  width: number
  height: number
}
type AvatarRendition = StoredRendition | Record<string, never>
export type Avatar = Record<RenditionName, AvatarRendition>

export const NO_AVATAR: Avatar = { s: {}, m: {}, o: {}, l: {} }

/** An expert's photo, stored: the profile's `avatar` (§5) and the item that keeps it. */
export interface StoredPhoto {
  avatar: Record<RenditionName, StoredRendition>
  files: FileToStore[]
}

/**
 * Makes the renditions of a photo and names their files: each rendition is one media reference (served
 * as WebP or JPEG as the browser accepts) backed by a `.webp` and a `.jpg` file of the same name.
 */
export async function preparePhoto(
  bytes: Buffer,
  orgId: number,
  focus?: FocusPoint,
  nameOf: (bytes: Buffer) => string = uploadNamer(),
): Promise<StoredPhoto> {
  const renditions = await photoRenditions(bytes, focus)
  const made: Partial<Record<RenditionName, StoredRendition>> = {}
  const files: FileToStore[] = []
  for (const rendition of renditions) {
    const name = nameOf(rendition.webp)
    made[rendition.name] = {
      url: mediaReference(orgId, name),
      width: rendition.width,
      height: rendition.height,
    }
    // A photo of at most 400 px square is its own large rendition: the two share their files.
    if (files.some((file) => file.name === name)) continue
    files.push(
      { name, extension: 'webp', bytes: rendition.webp },
      { name, extension: 'jpg', bytes: rendition.jpeg },
    )
  }
  const { s, m, o, l } = made
  if (!s || !m || !o || !l) throw new Error('photoRenditions made fewer renditions than the profile shows')
  return { avatar: { s, m, o, l }, files }
}

/** The avatar item's stored JSON, in the order the profile lists the renditions. */
export function avatarData(avatar: Avatar): string {
  return JSON.stringify(Object.fromEntries(AVATAR_SIZES.map((size) => [size, avatar[size]])))
}

/**
 * PUT .../avatar: stores the photo's renditions (the answer's URLs are media references, given the public
 * address on the way out, src/app.ts), points the profile at them and forgets the previous
 * photo, in one transaction (the expert's read documents and search row change with it); the previous
 * photo's files are deleted once it has committed. Nothing is left behind when anything fails.
 */
export async function setAvatar(
  context: MediaWriteContext,
  username: string,
  bytes: Buffer,
  focus?: FocusPoint,
  condition?: WriteCondition,
): Promise<Avatar> {
  const { db, orgId, now, trail, storage } = context
  const expert = await findExpert(db, orgId, username)
  if (!expert) throw notFound(`Expert ${username}`)
  const photo = await imageWork(context, () => preparePhoto(bytes, orgId, focus))
  const rows = await storeFiles(storage, { orgId, expertId: expert.id, purpose: 'avatar' }, photo.files, now)
  const previous = await committedOrDiscarded(storage, rows, () =>
    writeTransaction(db, async (trx) => {
      const locked = await findExpertForWrite(trx, orgId, username, 'expert')
      if (!locked || locked.id !== expert.id) throw notFound(`Expert ${username}`)
      await condition?.(trx)
      const old = await expertMediaKeys(trx, orgId, expert.id)
      await forgetMediaFiles(trx, orgId, old)
      await recordMediaFiles(trx, rows)
      const [item] = await listSectionItems(trx, orgId, expert.id, ['avatar'])
      const data = avatarData(photo.avatar)
      if (item) await updateProfileItem(trx, orgId, item.id, { data })
      else
        await insertProfileItem(trx, orgId, expert.id, {
          section: 'avatar',
          position: 0,
          external_key: '#0',
          data,
        })
      await profileChanged(trx, orgId, expert.id, now)
      await recordAudit(trx, orgId, trail, { kind: 'avatar', id: username }, now)
      return old
    }),
  )
  await discardFiles(storage, previous, context.report)
  return photo.avatar
}

/** DELETE .../avatar: the profile shows no photo, and the photo's files are deleted (404 when it has none). */
export async function deleteAvatar(
  context: MediaWriteContext,
  username: string,
  condition?: WriteCondition,
): Promise<void> {
  const { db, orgId, now, trail, storage } = context
  const removed = await writeTransaction(db, async (trx) => {
    const expert = await findExpertForWrite(trx, orgId, username, 'expert')
    if (!expert) throw notFound(`Expert ${username}`)
    await condition?.(trx)
    const items = await listSectionItems(trx, orgId, expert.id, ['avatar'])
    const keys = await expertMediaKeys(trx, orgId, expert.id)
    if (items.length === 0 && keys.length === 0) throw notFound(`The avatar of expert ${username}`)
    await deleteProfileItems(
      trx,
      orgId,
      items.map((item) => item.id),
    )
    await forgetMediaFiles(trx, orgId, keys)
    await profileChanged(trx, orgId, expert.id, now)
    await recordAudit(trx, orgId, trail, { kind: 'avatar', id: username }, now)
    return keys
  })
  await discardFiles(storage, removed, context.report)
}
