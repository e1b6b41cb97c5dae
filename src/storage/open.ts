import { resolve } from 'node:path'
import type { Config } from '../config.js'
import { folderStorage } from './folder.js'
import { parseBucketUrl, s3Storage } from './s3.js'
import type { MediaStorage } from './storage.js'

/** The media storage the configuration names: the bucket of `EXPERTDIR_MEDIA_S3_URL`, else the folder. */
export function openStorage(config: Pick<Config, 'mediaDir' | 'mediaS3Url'>): MediaStorage {
  return config.mediaS3Url ? s3Storage(parseBucketUrl(config.mediaS3Url)) : folderStorage(config.mediaDir)
}

/** Where media live, without opening the storage (the folder's absolute path, or the bucket without credentials). */
export function mediaLocation(config: Pick<Config, 'mediaDir' | 'mediaS3Url'>): string {
  return config.mediaS3Url ? parseBucketUrl(config.mediaS3Url).location : resolve(config.mediaDir)
}
