import { recordAudit } from '../audit/log.js'
import { writeTransaction } from '../db/transactions.js'
import type { MediaExtension } from '../storage/keys.js'
import { mediaUrl } from '../storage/keys.js'
import { recordMediaFiles } from '../storage/records.js'
import { imageWork, type MediaWriteContext } from './avatar.js'
import { cleanImage, type SniffedType } from './images.js'
import { committedOrDiscarded, storeFiles, uploadNamer } from './store.js'
import type { Upload } from './upload.js'

const EXTENSION: Record<SniffedType, MediaExtension> = { jpeg: 'jpg', png: 'png', webp: 'webp', pdf: 'pdf' }

/**
 * POST .../file: stores a document (a PDF as sent; an image oriented and stripped of its metadata, in
 * its own format) for a section's `url` fields and returns its URL. The organization owns it; once no
 * record refers to it, `expertdir media gc` removes it.
 */
export async function storeDocument(
  context: MediaWriteContext,
  upload: Upload,
  baseUrl: string,
): Promise<string> {
  const { db, orgId, now, trail, storage } = context
  const type = upload.type
  const bytes = type === 'pdf' ? upload.bytes : await imageWork(context, () => cleanImage(upload.bytes, type))
  const name = uploadNamer()(bytes)
  const extension = EXTENSION[type]
  const rows = await storeFiles(
    storage,
    { orgId, expertId: null, purpose: 'file' },
    [{ name, extension, bytes }],
    now,
  )
  await committedOrDiscarded(storage, rows, () =>
    writeTransaction(db, async (trx) => {
      await recordMediaFiles(trx, rows)
      await recordAudit(trx, orgId, trail, { kind: 'file', id: `${name}.${extension}` }, now)
    }),
  )
  return mediaUrl(baseUrl, orgId, name, extension)
}
