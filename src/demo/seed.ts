import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { WriteContext } from '../audit/write-context.js'
import { importContent } from '../import/index.js'
import { storeDocument } from '../media/documents.js'
import { updateOrganizationProfile } from '../profiles/organization.js'
import type { MediaStorage } from '../storage/storage.js'
import { DEMO_EXPERTS, DEMO_POSTS, type DemoPictures, demoDataset } from './dataset.js'
import { demoBanner, demoPortrait } from './images.js'

/** The demo directory's look. */
const DEMO_DIRECTORY = { brand_color: '#0b3d6b', accent_color: '#b45309' }

export interface SeededContent {
  experts: string[]
  spotlights: number[]
  questions: number[]
}

/** Where the demo's pictures are stored: the app's media storage and its public address. */
export interface DemoMedia {
  storage: MediaStorage
  /** The service's public base URL, which stored files' URLs start with. */
  baseUrl: string
  /** Largest accepted photo, in bytes (`EXPERTDIR_UPLOAD_MAX_BYTES`). */
  maxBytes: number
}

/**
 * Fills an organization with the demo content (src/demo/dataset.ts) through the import code; returns
 * the usernames and ids. Seeding twice updates the same records instead of duplicating them. With
 * `media`, the experts get drawn portraits and the posts drawn images, stored as uploads are (a photo
 * through the import's photo files, a post image as an uploaded file); without it they have none.
 */
export async function seedDemo(write: WriteContext, media?: DemoMedia): Promise<SeededContent> {
  const folder = media ? await mkdtemp(join(tmpdir(), 'expertdir-demo-')) : undefined
  try {
    const pictures = media && folder ? await storedPictures(write, media, folder) : undefined
    const result = await importContent(
      write,
      JSON.stringify(demoDataset(pictures)),
      media && folder ? { media: { ...media, baseDir: folder } } : {},
    )
    // The demo shows the public directory: /directory/<org>/ (CONTRACT §18).
    await updateOrganizationProfile(write, { public_directory: 1, ...DEMO_DIRECTORY })
    return result.ids
  } finally {
    if (folder) await rm(folder, { recursive: true, force: true })
  }
}

/** Draws the portraits into `folder` (the import reads them from there) and stores the posts' images. */
async function storedPictures(write: WriteContext, media: DemoMedia, folder: string): Promise<DemoPictures> {
  const portraits = new Map<string, string>()
  for (const { key, name } of DEMO_EXPERTS) {
    const file = `${key}.png`
    await writeFile(join(folder, file), await demoPortrait(name))
    portraits.set(key, file)
  }
  const context = { ...write, storage: media.storage, report: () => {} }
  const banners = new Map<string, string>()
  for (const { key, title } of DEMO_POSTS) {
    const upload = { bytes: await demoBanner(title), type: 'jpeg' as const }
    banners.set(key, await storeDocument(context, upload, media.baseUrl))
  }
  return { portraits, banners }
}
