import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import S3rver from 's3rver'

export interface TestBucket {
  /** `EXPERTDIR_MEDIA_S3_URL` of the bucket. */
  url: string
  close(): Promise<void>
}

/**
 * A real S3-compatible server (s3rver) on 127.0.0.1 with an empty bucket `media`, its objects in a
 * temporary folder. s3rver's built-in account is `S3RVER` / `S3RVER`; requests are signed as with AWS.
 */
export async function startTestBucket(): Promise<TestBucket> {
  const directory = mkdtempSync(join(tmpdir(), 'expertdir-s3-'))
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: 'media' }],
  })
  const { port } = await server.run()
  return {
    url: `http://S3RVER:S3RVER@127.0.0.1:${port}/media/expertdir`,
    async close() {
      await server.close()
      rmSync(directory, { recursive: true, force: true })
    },
  }
}
