import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import sharp from 'sharp'
import { buildApp } from '../src/app.js'
import { cliWriteContext } from '../src/audit/write-context.js'
import type { Config } from '../src/config.js'
import { openDatabase } from '../src/db/database.js'
import { ImportRejected, importContent } from '../src/import/index.js'
import { collectGarbage } from '../src/media/gc.js'
import { openStorage } from '../src/storage/open.js'
import type { MediaStorage } from '../src/storage/storage.js'
import { discardingStream } from './helpers/checked.js'
import { runCli } from './helpers/cli.js'
import { createExpert, describeEachDialect, envelope, type TestContext } from './helpers/harness.js'
import { EXIF_MARKER, multipart, pixelBomb, testImage, testPdf } from './helpers/images.js'
import { startTestBucket } from './helpers/s3.js'

const bucket = await startTestBucket()
after(() => bucket.close())

const DAY = 24 * 3600 * 1000
type Rendition = { url: string; width: number; height: number }
type Avatar = Record<'s' | 'm' | 'o' | 'l', Rendition>

async function storedKeys(storage: MediaStorage): Promise<string[]> {
  const keys: string[] = []
  for await (const object of storage.list()) keys.push(object.key)
  return keys.sort()
}

async function mediaRows(ctx: TestContext): Promise<number> {
  const row = await ctx.testDatabase.database.db
    .selectFrom('media_files')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/** The path of a media URL, for `inject`. */
const pathOf = (url: string) => new URL(url).pathname

function suite(storageName: 'folder' | 's3', config: () => Partial<Config>) {
  describeEachDialect(
    `photos and files (${storageName} storage)`,
    (ctx) => {
      let storage: MediaStorage
      before(() => {
        storage = openStorage(ctx.config)
      })
      after(() => storage.close())

      const avatarUrl = (username: string, query = '') =>
        `/v2/organization/${ctx.tenant.orgId}/expert/${username}/avatar${query}`

      async function upload(username: string, bytes: Buffer, type: string, how: 'multipart' | 'raw') {
        const body =
          how === 'multipart'
            ? multipart(bytes, { type })
            : { payload: bytes, headers: { 'content-type': type } }
        return ctx.inject({
          method: 'PUT',
          url: avatarUrl(username),
          headers: { ...ctx.tenant.auth, ...body.headers },
          payload: body.payload,
        })
      }

      async function uploaded(username: string, bytes: Buffer, type: string, how: 'multipart' | 'raw') {
        const response = await upload(username, bytes, type, how)
        assert.equal(response.statusCode, 200, response.body)
        return response.json().data.avatar as Avatar
      }

      async function served(
        url: string,
        accept = 'image/avif,image/webp,*/*',
      ): Promise<LightMyRequestResponse> {
        return ctx.inject({ method: 'GET', url: pathOf(url), headers: { accept } })
      }

      async function assertClean(bytes: Buffer) {
        const metadata = await sharp(bytes).metadata()
        assert.equal(metadata.exif, undefined, 'no EXIF')
        assert.equal(metadata.xmp, undefined, 'no XMP')
        assert.equal(bytes.includes(Buffer.from(EXIF_MARKER)), false, 'no trace of the camera data')
        assert.equal(bytes.includes(Buffer.from('GPS')), false, 'no GPS block')
      }

      for (const [format, type] of [
        ['jpeg', 'image/jpeg'],
        ['png', 'image/png'],
        ['webp', 'image/webp'],
      ] as const) {
        for (const how of ['multipart', 'raw'] as const) {
          test(`a ${format} photo sent ${how} gives four renditions, served without EXIF or GPS`, async () => {
            const username = await createExpert(ctx, ctx.tenant)
            const avatar = await uploaded(username, await testImage(format), type, how)
            assert.deepEqual(
              Object.fromEntries(Object.entries(avatar).map(([size, r]) => [size, [r.width, r.height]])),
              { s: [64, 64], m: [200, 200], o: [640, 480], l: [400, 400] },
            )
            for (const rendition of Object.values(avatar)) {
              assert.match(rendition.url, /^http:\/\/localhost(:80)?\/media\/\d+\/[0-9a-f]{32}$/)
              for (const [accept, contentType] of [
                ['image/webp,*/*', 'image/webp'],
                ['*/*', 'image/jpeg'],
              ]) {
                const response = await served(rendition.url, accept)
                assert.equal(response.statusCode, 200)
                assert.equal(response.headers['content-type'], contentType)
                assert.equal(response.headers['x-content-type-options'], 'nosniff')
                assert.equal(response.headers['cache-control'], 'public, max-age=31536000, immutable')
                assert.equal(response.headers.vary, 'Accept')
                const metadata = await sharp(response.rawPayload).metadata()
                assert.deepEqual([metadata.width, metadata.height], [rendition.width, rendition.height])
                await assertClean(response.rawPayload)
              }
            }
          })
        }
      }

      test('the profile and the search results carry the photo at once, also in a second app instance', async () => {
        const username = await createExpert(ctx, ctx.tenant, { lastname: 'Photographed' })
        const second = await buildApp({
          config: ctx.config,
          database: openDatabase(ctx.testDatabase.url),
          now: ctx.clock.now,
        })
        try {
          const profileUrl = `/v2/organization/${ctx.tenant.orgId}/expert/${username}`
          const before = await second.inject({ method: 'GET', url: profileUrl, headers: ctx.tenant.auth })
          assert.deepEqual(before.json().data.avatar, { s: {}, m: {}, o: {}, l: {} })
          const avatar = await uploaded(username, await testImage('jpeg'), 'image/jpeg', 'raw')
          const after = await second.inject({ method: 'GET', url: profileUrl, headers: ctx.tenant.auth })
          assert.deepEqual(after.json().data.avatar, avatar)
          assert.notEqual(after.headers.etag, before.headers.etag)
          const search = await second.inject({
            method: 'GET',
            url: `/v2/organization/${ctx.tenant.orgId}/expert?q=Photographed&status=all`,
            headers: ctx.tenant.auth,
          })
          const [found] = search.json().data.experts
          assert.deepEqual(found.avatar, {
            small: avatar.s.url,
            medium: avatar.m.url,
            large: avatar.l.url,
            original: avatar.o.url,
          })
          const file = await second.inject({ method: 'GET', url: pathOf(avatar.l.url) })
          assert.equal(file.statusCode, 200, 'the other instance serves the file too')
        } finally {
          await second.close()
        }
      })

      test('orientation is applied and a focus point moves the crop', async () => {
        const username = await createExpert(ctx, ctx.tenant)
        const avatar = await uploaded(
          username,
          await testImage('jpeg', 400, 300, { orientation: 6 }),
          'image/jpeg',
          'raw',
        )
        assert.deepEqual([avatar.o.width, avatar.o.height], [300, 400], 'the 90° rotation is applied')
        // Rotated, the red left half is on top: a crop at the top is red, at the bottom blue.
        const top = await ctx.inject({
          method: 'PUT',
          url: avatarUrl(username, '?focus_x=0.5&focus_y=0'),
          headers: { ...ctx.tenant.auth, 'content-type': 'image/jpeg' },
          payload: await testImage('jpeg', 400, 300, { orientation: 6 }),
        })
        const small = await served(top.json().data.avatar.s.url, '*/*')
        const { dominant } = await sharp(small.rawPayload).stats()
        assert.ok(dominant.r > 150 && dominant.b < 100, `the top crop is red: ${JSON.stringify(dominant)}`)
        const focus = await ctx.inject({
          method: 'PUT',
          url: avatarUrl(username, '?focus_x=2'),
          headers: { ...ctx.tenant.auth, 'content-type': 'image/jpeg' },
          payload: await testImage('jpeg'),
        })
        assert.equal(focus.statusCode, 400)
        assert.equal(envelope(focus).error?.code, 'validation_failed')
      })

      test('a photo smaller than a size gives a smaller square, never an upscaled one', async () => {
        const username = await createExpert(ctx, ctx.tenant)
        const avatar = await uploaded(username, await testImage('png', 300, 250), 'image/png', 'multipart')
        assert.deepEqual([avatar.l.width, avatar.l.height], [250, 250])
        assert.deepEqual([avatar.o.width, avatar.o.height], [300, 250])
        const square = await uploaded(username, await testImage('jpeg', 240, 240), 'image/jpeg', 'raw')
        assert.deepEqual([square.l.width, square.o.width], [240, 240])
        assert.equal((await served(square.l.url)).statusCode, 200)
      })

      const refusals: {
        name: string
        body: () => Promise<Buffer>
        type: string
        status: number
        code: string
      }[] = [
        {
          name: 'too small (150x150)',
          body: () => testImage('jpeg', 150, 150),
          type: 'image/jpeg',
          status: 400,
          code: 'validation_failed',
        },
        {
          name: 'too many pixels (a 8000x6000 header)',
          body: async () => pixelBomb(8000, 6000),
          type: 'image/png',
          status: 413,
          code: 'payload_too_large',
        },
        {
          name: 'too large (over 4 MiB)',
          body: async () => Buffer.concat([await testImage('jpeg'), Buffer.alloc(4 * 1024 * 1024)]),
          type: 'image/jpeg',
          status: 413,
          code: 'payload_too_large',
        },
        {
          name: 'not an image (text)',
          body: async () => Buffer.from('hello, this is not a picture'),
          type: 'image/jpeg',
          status: 415,
          code: 'unsupported_media_type',
        },
        {
          name: 'a PDF',
          body: async () => testPdf(),
          type: 'application/pdf',
          status: 415,
          code: 'unsupported_media_type',
        },
        {
          name: 'a PNG declared as image/jpeg',
          body: () => testImage('png'),
          type: 'image/jpeg',
          status: 415,
          code: 'unsupported_media_type',
        },
        {
          name: 'a truncated JPEG',
          body: async () => {
            const jpeg = await testImage('jpeg')
            return jpeg.subarray(0, Math.floor(jpeg.length / 2))
          },
          type: 'image/jpeg',
          status: 400,
          code: 'validation_failed',
        },
      ]
      for (const refusal of refusals) {
        for (const how of ['multipart', 'raw'] as const) {
          if (how === 'multipart' && refusal.type === 'image/jpeg' && refusal.name.startsWith('a PNG'))
            continue
          test(`${refusal.name} sent ${how} is ${refusal.status} ${refusal.code} and stores nothing`, async () => {
            const username = await createExpert(ctx, ctx.tenant)
            const [keysBefore, rowsBefore] = [await storedKeys(storage), await mediaRows(ctx)]
            const response = await upload(username, await refusal.body(), refusal.type, how)
            assert.equal(response.statusCode, refusal.status, response.body)
            assert.equal(envelope(response).error?.code, refusal.code)
            assert.equal(response.headers['content-type'], 'application/json; charset=utf-8')
            assert.deepEqual(await storedKeys(storage), keysBefore)
            assert.equal(await mediaRows(ctx), rowsBefore)
            const profile = await ctx.inject({
              method: 'GET',
              url: `/v2/organization/${ctx.tenant.orgId}/expert/${username}`,
              headers: ctx.tenant.auth,
            })
            assert.deepEqual(profile.json().data.avatar, { s: {}, m: {}, o: {}, l: {} })
          })
        }
      }

      test('other bodies are refused in the envelope: JSON 415, no file part 400, another field 400, bad :corporation 400', async () => {
        const username = await createExpert(ctx, ctx.tenant)
        const json = await ctx.inject({
          method: 'PUT',
          url: avatarUrl(username),
          headers: ctx.tenant.auth,
          payload: { file: 'x' },
        })
        assert.equal(json.statusCode, 415)
        assert.equal(envelope(json).error?.code, 'unsupported_media_type')
        const empty = await ctx.inject({ method: 'PUT', url: avatarUrl(username), headers: ctx.tenant.auth })
        assert.equal(empty.statusCode, 400)
        const other = multipart(await testImage('jpeg'), { field: 'photo' })
        const wrongField = await ctx.inject({
          method: 'PUT',
          url: avatarUrl(username),
          headers: { ...ctx.tenant.auth, ...other.headers },
          payload: other.payload,
        })
        assert.equal(wrongField.statusCode, 400)
        assert.equal(envelope(wrongField).error?.code, 'validation_failed')
        const badId = await ctx.inject({
          method: 'PUT',
          url: `/v2/organization/01/expert/${username}/avatar`,
          headers: { ...ctx.tenant.auth, 'content-type': 'image/jpeg' },
          payload: await testImage('jpeg'),
        })
        assert.equal(badId.statusCode, 400)
        const missing = await upload('no-such-expert', await testImage('jpeg'), 'image/jpeg', 'raw')
        assert.equal(missing.statusCode, 404)
      })

      test('replacing a photo deletes the old files; deleting it deletes the new ones', async () => {
        const username = await createExpert(ctx, ctx.tenant)
        const first = await uploaded(username, await testImage('jpeg'), 'image/jpeg', 'raw')
        const keysWithFirst = await storedKeys(storage)
        const second = await uploaded(username, await testImage('webp'), 'image/webp', 'raw')
        for (const rendition of Object.values(first)) {
          assert.equal((await served(rendition.url)).statusCode, 404, 'the old photo is gone')
        }
        for (const rendition of Object.values(second)) {
          assert.equal((await served(rendition.url)).statusCode, 200)
          assert.notEqual(rendition.url, first.s.url)
        }
        assert.equal(
          (await storedKeys(storage)).length,
          keysWithFirst.length,
          'eight files replaced by eight',
        )
        const removed = await ctx.inject({
          method: 'DELETE',
          url: avatarUrl(username),
          headers: ctx.tenant.auth,
        })
        assert.equal(removed.statusCode, 200, removed.body)
        assert.equal((await storedKeys(storage)).length, keysWithFirst.length - 8)
        for (const rendition of Object.values(second))
          assert.equal((await served(rendition.url)).statusCode, 404)
        const profile = await ctx.inject({
          method: 'GET',
          url: `/v2/organization/${ctx.tenant.orgId}/expert/${username}`,
          headers: ctx.tenant.auth,
        })
        assert.deepEqual(profile.json().data.avatar, { s: {}, m: {}, o: {}, l: {} })
        const again = await ctx.inject({
          method: 'DELETE',
          url: avatarUrl(username),
          headers: ctx.tenant.auth,
        })
        assert.equal(again.statusCode, 404)
      })

      test("deleting an expert deletes its photo's files", async () => {
        const username = await createExpert(ctx, ctx.tenant)
        const avatar = await uploaded(username, await testImage('jpeg'), 'image/jpeg', 'multipart')
        const before = (await storedKeys(storage)).length
        const removed = await ctx.inject({
          method: 'DELETE',
          url: `/v2/organization/${ctx.tenant.orgId}/expert/${username}`,
          headers: ctx.tenant.auth,
        })
        assert.equal(removed.statusCode, 200)
        assert.equal((await storedKeys(storage)).length, before - 8)
        assert.equal((await served(avatar.o.url)).statusCode, 404)
      })

      test('a storage failure in the middle of an upload leaves no file and no record', async () => {
        let puts = 0
        const failing: MediaStorage = {
          ...storage,
          location: storage.location,
          put: async (key, bytes, type) => {
            if (++puts === 5) throw new Error('disk full')
            await storage.put(key, bytes, type)
          },
        }
        const app = await buildApp({
          config: ctx.config,
          database: ctx.testDatabase.database,
          now: ctx.clock.now,
          storage: failing,
          logStream: discardingStream(),
        })
        try {
          const username = await createExpert(ctx, ctx.tenant)
          const [keysBefore, rowsBefore] = [await storedKeys(storage), await mediaRows(ctx)]
          const response = await app.inject({
            method: 'PUT',
            url: avatarUrl(username),
            headers: { ...ctx.tenant.auth, 'content-type': 'image/jpeg' },
            payload: await testImage('jpeg'),
          })
          assert.equal(response.statusCode, 500)
          assert.equal(envelope(response).error?.code, 'internal_error')
          assert.deepEqual(await storedKeys(storage), keysBefore)
          assert.equal(await mediaRows(ctx), rowsBefore)
        } finally {
          await app.close()
        }
      })

      test('documents: a PDF is stored as sent, an image without its metadata; both served with their type', async () => {
        const fileUrl = `/v2/organization/${ctx.tenant.orgId}/file`
        const pdfBody = multipart(testPdf(), { type: 'application/pdf', filename: 'cv.pdf' })
        const pdf = await ctx.inject({
          method: 'POST',
          url: fileUrl,
          headers: { ...ctx.tenant.auth, ...pdfBody.headers },
          payload: pdfBody.payload,
        })
        assert.equal(pdf.statusCode, 200, pdf.body)
        const pdfUrl: string = pdf.json().data.url
        assert.match(pdfUrl, /\/media\/\d+\/[0-9a-f]{32}\.pdf$/)
        const pdfFile = await served(pdfUrl)
        assert.equal(pdfFile.headers['content-type'], 'application/pdf')
        assert.equal(pdfFile.headers['x-content-type-options'], 'nosniff')
        assert.deepEqual(pdfFile.rawPayload, testPdf())
        const image = await ctx.inject({
          method: 'POST',
          url: fileUrl,
          headers: { ...ctx.tenant.auth, 'content-type': 'image/jpeg' },
          payload: await testImage('jpeg', 120, 90),
        })
        assert.equal(image.statusCode, 200, image.body)
        const imageFile = await served(image.json().data.url)
        assert.equal(imageFile.headers['content-type'], 'image/jpeg')
        await assertClean(imageFile.rawPayload)
        const text = await ctx.inject({
          method: 'POST',
          url: fileUrl,
          headers: { ...ctx.tenant.auth, 'content-type': 'application/pdf' },
          payload: Buffer.from('not a pdf'),
        })
        assert.equal(text.statusCode, 415)
      })

      test('unknown and malformed media paths are 404 in the envelope', async () => {
        for (const path of [
          '/media/1/0123456789abcdef0123456789abcdef',
          '/media/1/nothex',
          '/media/1/0123456789abcdef0123456789abcdef.exe',
          '/media/1/..%2F..%2Fetc%2Fpasswd',
          '/media/0/0123456789abcdef0123456789abcdef.pdf',
        ]) {
          const response = await ctx.inject({ method: 'GET', url: path })
          assert.equal(response.statusCode, 404, path)
          assert.equal(envelope(response).error?.code, 'not_found')
        }
      })

      test('import accepts a local photo file; importing the same file again changes nothing', async () => {
        const dir = mkdtempSync(join(tmpdir(), 'expertdir-import-'))
        try {
          writeFileSync(join(dir, 'ada.jpg'), await testImage('jpeg'))
          const file = join(dir, 'experts.json')
          const key = `photo-${Math.random().toString(36).slice(2)}`
          writeFileSync(
            file,
            JSON.stringify({
              experts: [
                {
                  key,
                  firstname: 'Ada',
                  lastname: 'Imported',
                  job_title: 'Engineer',
                  email: `${key}@example.org`,
                  company: 'Example',
                  sections: { avatar: { file: 'ada.jpg' } },
                },
              ],
            }),
          )
          const env: Record<string, string> = ctx.config.mediaS3Url
            ? { EXPERTDIR_MEDIA_S3_URL: ctx.config.mediaS3Url }
            : { EXPERTDIR_MEDIA_DIR: ctx.config.mediaDir }
          const args = [
            '--db',
            ctx.testDatabase.url,
            'import',
            file,
            '--org',
            String(ctx.tenant.orgId),
            '--json',
          ]
          const first = await runCli(args, env)
          assert.equal(first.code, 0, first.stderr)
          assert.equal(JSON.parse(first.stdout).experts.created, 1)
          const [username] = (
            await ctx.testDatabase.database.db
              .selectFrom('experts')
              .select('username')
              .where('lastname', '=', 'Imported')
              .execute()
          ).map((row) => row.username)
          const read = async () =>
            (
              await ctx.inject({
                method: 'GET',
                url: `/v2/organization/${ctx.tenant.orgId}/expert/${username}`,
                headers: ctx.tenant.auth,
              })
            ).json().data.avatar as Avatar
          const avatar = await read()
          assert.deepEqual([avatar.o.width, avatar.o.height, avatar.l.width], [640, 480, 400])
          const original = await served(avatar.o.url)
          assert.equal(original.statusCode, 200)
          await assertClean(original.rawPayload)
          const keys = await storedKeys(storage)
          const again = await runCli(args, env)
          assert.equal(again.code, 0, again.stderr)
          assert.deepEqual(JSON.parse(again.stdout).experts, { created: 0, updated: 0, unchanged: 1 })
          assert.deepEqual(await read(), avatar)
          assert.deepEqual(await storedKeys(storage), keys)
        } finally {
          rmSync(dir, { recursive: true, force: true })
        }
      })

      test('an import naming a missing or unacceptable photo file is refused whole and stores nothing', async () => {
        const dir = mkdtempSync(join(tmpdir(), 'expertdir-import-'))
        try {
          writeFileSync(join(dir, 'tiny.png'), await testImage('png', 100, 100))
          writeFileSync(join(dir, 'good.png'), await testImage('png'))
          const expert = (n: number, file: string) => ({
            key: `bad-photo-${n}-${Math.random().toString(36).slice(2)}`,
            firstname: 'Bad',
            lastname: `Photo ${n}`,
            job_title: 'Tester',
            email: `bad-photo-${n}-${Math.random().toString(36).slice(2)}@example.org`,
            company: 'Example',
            sections: { avatar: { file } },
          })
          const [keysBefore, rowsBefore] = [await storedKeys(storage), await mediaRows(ctx)]
          await assert.rejects(
            importContent(
              cliWriteContext(ctx.testDatabase.database.db, ctx.tenant.orgId, 'import', ctx.clock.now()),
              JSON.stringify({
                experts: [expert(1, 'good.png'), expert(2, 'missing.jpg'), expert(3, 'tiny.png')],
              }),
              {
                media: {
                  storage,
                  baseDir: dir,
                  maxBytes: ctx.config.uploadMaxBytes,
                },
              },
            ),
            (error: unknown) => {
              assert.ok(error instanceof ImportRejected)
              assert.deepEqual(
                error.issues.map((issue) => [issue.field, issue.message]),
                [
                  ['sections.avatar.file', 'file not found'],
                  ['sections.avatar.file', 'must be at least 200x200 pixels (this one is 100x100)'],
                ],
              )
              return true
            },
          )
          assert.deepEqual(await storedKeys(storage), keysBefore)
          assert.equal(await mediaRows(ctx), rowsBefore)
        } finally {
          rmSync(dir, { recursive: true, force: true })
        }
      })

      test('media gc removes files no record points to, and keeps those in use', async () => {
        const username = await createExpert(ctx, ctx.tenant)
        const avatar = await uploaded(username, await testImage('jpeg'), 'image/jpeg', 'raw')
        const fileUrl = `/v2/organization/${ctx.tenant.orgId}/file`
        const post = async () => {
          const response = await ctx.inject({
            method: 'POST',
            url: fileUrl,
            headers: { ...ctx.tenant.auth, 'content-type': 'application/pdf' },
            payload: testPdf(),
          })
          return response.json().data.url as string
        }
        const used = await post()
        const unused = await post()
        const section = await ctx.inject({
          method: 'POST',
          url: `/v2/organization/${ctx.tenant.orgId}/expert/${username}/document`,
          headers: ctx.tenant.auth,
          payload: { title: 'CV', url: used },
        })
        assert.equal(section.statusCode, 200, section.body)
        const stray = `${ctx.tenant.orgId}/${'ab'.repeat(16)}.webp`
        await storage.put(stray, Buffer.from('left over by a crash'), 'image/webp')
        const fresh = await collectGarbage(ctx.testDatabase.database.db, storage, ctx.clock.now())
        assert.equal(fresh.removed, 0, 'nothing younger than a day is removed')
        const result = await collectGarbage(ctx.testDatabase.database.db, storage, ctx.clock.now() + 2 * DAY)
        assert.ok(result.removed >= 2, JSON.stringify(result))
        assert.equal((await served(unused)).statusCode, 404)
        assert.equal((await storedKeys(storage)).includes(stray), false)
        assert.equal((await served(used)).statusCode, 200)
        for (const rendition of Object.values(avatar))
          assert.equal((await served(rendition.url)).statusCode, 200)
      })
    },
    { config: config() },
  )
}

suite('folder', () => ({ rateLimitUploads: 0 }))
suite('s3', () => ({ mediaS3Url: bucket.url, rateLimitUploads: 0 }))
