import { createRequire } from 'node:module'
import { Readable } from 'node:stream'
import type { S3ClientConfig } from '@aws-sdk/client-s3'
import { MEDIA_KEY } from './keys.js'
import type { MediaStorage, OpenedObject, StoredObject } from './storage.js'

/** What `EXPERTDIR_MEDIA_S3_URL` names: the client's settings, the bucket and a key prefix. */
export interface BucketAddress {
  client: S3ClientConfig
  bucket: string
  prefix: string
  /** The address without credentials, for operators. */
  location: string
}

/**
 * `s3://bucket[/prefix]`: AWS S3, with the SDK's own credentials and region (AWS_ACCESS_KEY_ID,
 * AWS_REGION, a profile, an instance role). `http(s)://[key:secret@]host[:port]/bucket[/prefix]
 * [?region=R]`: another S3-compatible server (MinIO, Garage, Ceph...), addressed path-style.
 */
export function parseBucketUrl(value: string): BucketAddress {
  const url = new URL(value)
  const [bucket = '', ...rest] = (
    url.protocol === 's3:' ? [url.hostname, ...url.pathname.split('/')] : url.pathname.split('/').slice(1)
  ).filter((part) => part !== '')
  if (!bucket) throw new Error('EXPERTDIR_MEDIA_S3_URL names no bucket')
  const prefix = rest.length > 0 ? `${rest.join('/')}/` : ''
  const region = url.searchParams.get('region') ?? process.env.AWS_REGION ?? 'us-east-1'
  if (url.protocol === 's3:') {
    return { client: { region }, bucket, prefix, location: `s3://${bucket}/${prefix}` }
  }
  const endpoint = `${url.protocol}//${url.host}`
  const client: S3ClientConfig = { region, endpoint, forcePathStyle: true }
  if (url.username) {
    client.credentials = {
      accessKeyId: decodeURIComponent(url.username),
      secretAccessKey: decodeURIComponent(url.password),
    }
  }
  return { client, bucket, prefix, location: `${endpoint}/${bucket}/${prefix}` }
}

function checkedKey(key: string): string {
  if (!MEDIA_KEY.test(key)) throw new Error(`Not a media key: ${key}`)
  return key
}

/** Media in an S3-compatible bucket: a PUT is atomic by itself, so a write needs no temporary name. */
export function s3Storage(address: BucketAddress): MediaStorage {
  // The SDK is loaded only for a bucket: about 35 MiB that a process storing in a folder never needs.
  const {
    DeleteObjectsCommand,
    GetObjectCommand,
    ListObjectsV2Command,
    NoSuchKey,
    PutObjectCommand,
    S3Client,
  }: typeof import('@aws-sdk/client-s3') = createRequire(import.meta.url)('@aws-sdk/client-s3')
  const client = new S3Client(address.client)
  const { bucket, prefix } = address
  const objectKey = (key: string) => `${prefix}${checkedKey(key)}`

  return {
    location: address.location,

    async put(key, bytes, contentType) {
      await client.send(
        new PutObjectCommand({ Bucket: bucket, Key: objectKey(key), Body: bytes, ContentType: contentType }),
      )
    },

    async open(key): Promise<OpenedObject | undefined> {
      try {
        const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: objectKey(key) }))
        if (!(object.Body instanceof Readable)) return undefined
        return { body: object.Body, bytes: object.ContentLength ?? 0 }
      } catch (error) {
        if (error instanceof NoSuchKey || (error instanceof Error && error.name === 'NoSuchKey'))
          return undefined
        throw error
      }
    },

    async delete(keys) {
      for (let start = 0; start < keys.length; start += 1000) {
        const batch = keys.slice(start, start + 1000)
        await client.send(
          new DeleteObjectsCommand({
            Bucket: bucket,
            Delete: { Objects: batch.map((key) => ({ Key: objectKey(key) })), Quiet: true },
          }),
        )
      }
    },

    async *list(): AsyncIterable<StoredObject> {
      let token: string | undefined
      do {
        const page = await client.send(
          new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
        )
        for (const object of page.Contents ?? []) {
          const key = object.Key?.slice(prefix.length) ?? ''
          if (MEDIA_KEY.test(key)) yield { key, modifiedAt: object.LastModified?.getTime() ?? 0 }
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined
      } while (token)
    },

    async close() {
      client.destroy()
    },
  }
}
