import assert from 'node:assert/strict'
import { request as httpRequest } from 'node:http'
import { before, test } from 'node:test'
import sharp from 'sharp'
import { ApiError } from '../src/errors.js'
import { imageDecodes, ORIGINAL_MAX_SIDE } from '../src/media/images.js'
import { ImageQueue } from '../src/media/queue.js'
import { createExpert, describeEachDialect, envelope } from './helpers/harness.js'
import { testImage } from './helpers/images.js'
import { listeningPort } from './helpers/net.js'

/**
 * A 6000x6600 WebP of about 100 KB: inside the 40-megapixel limit, but a full decoding costs about
 * 150 MiB of pixels, and the old pipeline decoded it eight times and kept it at full size.
 */
const bomb = sharp({ create: { width: 6000, height: 6600, channels: 3, background: '#2471a3' } })
  .webp({ quality: 50, effort: 0 })
  .toBuffer()

interface Answer {
  status: number
  body: { success?: boolean; error?: { code: string } }
  headers: Record<string, string | string[] | undefined>
  /** Body bytes the client had written when the answer came. */
  sent: number
}

/**
 * Sends a multipart upload whose file part follows `preamble` bytes of junk before the first boundary,
 * over real HTTP, writing as the server reads (so `sent` tells how much it took) and stopping at the answer.
 */
function sendWithPreamble(
  port: number,
  path: string,
  headers: Record<string, string>,
  preamble: number,
  file: Buffer,
  declareLength: boolean,
): Promise<Answer> {
  const boundary = 'expertdirpreamble'
  const head = Buffer.from(
    `\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`,
  )
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`)
  const total = preamble + head.length + file.length + tail.length
  return new Promise((resolve, reject) => {
    let sent = 0
    let answered = false
    const request = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'PUT',
        headers: {
          ...headers,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          ...(declareLength ? { 'content-length': String(total) } : { 'transfer-encoding': 'chunked' }),
        },
      },
      (response) => {
        answered = true
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.on('end', () => {
          request.destroy()
          resolve({
            status: response.statusCode ?? 0,
            body: JSON.parse(Buffer.concat(chunks).toString() || '{}'),
            headers: response.headers,
            sent,
          })
        })
      },
    )
    request.on('error', (error) => {
      if (!answered) reject(error)
    })
    const chunk = Buffer.alloc(64 * 1024, 'x')
    let left = preamble
    const pump = () => {
      while (!answered && left > 0) {
        const piece = left >= chunk.length ? chunk : chunk.subarray(0, left)
        left -= piece.length
        sent += piece.length
        if (!request.write(piece)) return void request.once('drain', pump)
      }
      if (!answered) {
        sent += head.length + file.length + tail.length
        request.end(Buffer.concat([head, file, tail]))
      }
    }
    pump()
  })
}

describeEachDialect(
  'upload limits: image work and whole bodies',
  (ctx) => {
    let port = 0
    before(async () => {
      await ctx.app.listen({ host: '127.0.0.1', port: 0 })
      port = listeningPort(ctx.app.server)
    })
    const avatarPath = (username: string) => `/v2/organization/${ctx.tenant.orgId}/expert/${username}/avatar`

    test('a 6000x6600 WebP is decoded once, shrunk as it loads, and kept at most 2048 px', async () => {
      const username = await createExpert(ctx, ctx.tenant)
      const bytes = await bomb
      assert.ok(bytes.length < 200 * 1024, `the bomb is small in bytes (${bytes.length})`)
      const decodesBefore = imageDecodes()
      const response = await ctx.inject({
        method: 'PUT',
        url: avatarPath(username),
        headers: { ...ctx.tenant.auth, 'content-type': 'image/webp' },
        payload: bytes,
      })
      assert.equal(response.statusCode, 200, response.body)
      assert.equal(imageDecodes() - decodesBefore, 1, 'one decoding for the eight files')
      const avatar = response.json().data.avatar
      // 6000x6600 reduced to fit 2048: the longer side is 2048, the other keeps the proportion.
      assert.deepEqual([avatar.o.width, avatar.o.height], [1862, ORIGINAL_MAX_SIDE])
      assert.deepEqual([avatar.l.width, avatar.l.height], [400, 400])
      for (const accept of ['image/webp', '*/*']) {
        const file = await ctx.inject({
          method: 'GET',
          url: new URL(avatar.o.url).pathname,
          headers: { accept },
        })
        const stored = await sharp(file.rawPayload).metadata()
        assert.deepEqual([stored.width, stored.height], [1862, 2048], `the stored original (${accept})`)
      }
    })

    test('a document image is shrunk as it loads too: one decoding, at most 4096 px', async () => {
      const decodesBefore = imageDecodes()
      const response = await ctx.inject({
        method: 'POST',
        url: `/v2/organization/${ctx.tenant.orgId}/file`,
        headers: { ...ctx.tenant.auth, 'content-type': 'image/webp' },
        payload: await bomb,
      })
      assert.equal(response.statusCode, 200, response.body)
      assert.equal(imageDecodes() - decodesBefore, 1)
      const file = await ctx.inject({ method: 'GET', url: new URL(response.json().data.url).pathname })
      const stored = await sharp(file.rawPayload).metadata()
      assert.deepEqual([stored.width, stored.height], [3724, 4096])
    })

    test('a multipart body with a large preamble is 413 in the envelope once its bound is passed', async () => {
      const username = await createExpert(ctx, ctx.tenant)
      const photo = await testImage('png', 300, 300)
      const answer = await sendWithPreamble(
        port,
        avatarPath(username),
        ctx.tenant.auth,
        64 * 1024 * 1024,
        photo,
        false,
      )
      assert.equal(answer.status, 413, JSON.stringify(answer.body))
      assert.equal(answer.body.error?.code, 'payload_too_large')
      assert.equal(answer.headers.connection, 'close')
      // The server stops reading at its bound (4 MiB and 64 KiB): what the sockets' buffers held besides.
      assert.ok(answer.sent < 24 * 1024 * 1024, `the server stopped reading (${answer.sent} bytes sent)`)
      const profile = await ctx.inject({
        method: 'GET',
        url: `/v2/organization/${ctx.tenant.orgId}/expert/${username}`,
        headers: ctx.tenant.auth,
      })
      assert.deepEqual(profile.json().data.avatar.l, {}, 'no photo stored')
    })

    test('a multipart body declaring more than its bound is 413 before it is read', async () => {
      const username = await createExpert(ctx, ctx.tenant)
      // 200 MiB declared, 1 KB sent: the answer comes without waiting for the rest.
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const request = httpRequest(
          {
            host: '127.0.0.1',
            port,
            path: avatarPath(username),
            method: 'PUT',
            headers: {
              ...ctx.tenant.auth,
              'content-type': 'multipart/form-data; boundary=declared',
              'content-length': String(200 * 1024 * 1024),
            },
          },
          (response) => {
            const chunks: Buffer[] = []
            response.on('data', (chunk: Buffer) => chunks.push(chunk))
            response.on('end', () => {
              request.destroy()
              resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString() })
            })
          },
        )
        request.on('error', reject)
        request.write(Buffer.alloc(1000, 'x'))
      })
      assert.equal(answer.status, 413, answer.body)
      assert.equal(JSON.parse(answer.body).error.code, 'payload_too_large')
    })

    test('a small preamble within the bound is still accepted', async () => {
      const username = await createExpert(ctx, ctx.tenant)
      const answer = await sendWithPreamble(
        port,
        avatarPath(username),
        ctx.tenant.auth,
        1000,
        await testImage('png', 300, 300),
        true,
      )
      assert.equal(answer.status, 200, JSON.stringify(answer.body))
    })

    test('a form with more parts than an upload takes is 413 in the envelope', async () => {
      const username = await createExpert(ctx, ctx.tenant)
      const boundary = 'manyparts'
      const fields = Array.from(
        { length: 30 },
        (_, i) => `--${boundary}\r\nContent-Disposition: form-data; name="f${i}"\r\n\r\nv\r\n`,
      ).join('')
      const payload = Buffer.concat([
        Buffer.from(fields),
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`,
        ),
        await testImage('png', 300, 300),
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ])
      const response = await ctx.inject({
        method: 'PUT',
        url: avatarPath(username),
        headers: { ...ctx.tenant.auth, 'content-type': `multipart/form-data; boundary=${boundary}` },
        payload,
      })
      assert.equal(response.statusCode, 413, response.body)
      assert.equal(envelope(response).error?.code, 'payload_too_large')
    })
  },
  { config: { rateLimitUploads: 0 } },
)

describeEachDialect(
  'upload limits: the per-token upload rate',
  (ctx) => {
    test('the third upload of a minute is 429 with Retry-After, before its body is read', async () => {
      const username = await createExpert(ctx, ctx.tenant)
      const photo = await testImage('png', 300, 300)
      const put = () =>
        ctx.inject({
          method: 'PUT',
          url: `/v2/organization/${ctx.tenant.orgId}/expert/${username}/avatar`,
          headers: { ...ctx.tenant.auth, 'content-type': 'image/png' },
          payload: photo,
        })
      assert.equal((await put()).statusCode, 200)
      assert.equal((await put()).statusCode, 200)
      const refused = await put()
      assert.equal(refused.statusCode, 429, refused.body)
      assert.equal(envelope(refused).error?.code, 'rate_limited')
      assert.equal(refused.headers['retry-after'], '60')
      const other = await ctx.inject({
        method: 'POST',
        url: `/v2/organization/${ctx.other.orgId}/file`,
        headers: { ...ctx.other.auth, 'content-type': 'image/png' },
        payload: photo,
      })
      assert.equal(other.statusCode, 200, 'another token has its own allowance')
      ctx.clock.advance(60_000)
      assert.equal((await put()).statusCode, 200, 'a new minute, a new allowance')
    })
  },
  { config: { rateLimitUploads: 2 } },
)

test('the image queue runs its jobs in turn and refuses one more than it holds: 503 with Retry-After', async () => {
  const queue = new ImageQueue(1, 1)
  const releases: (() => void)[] = []
  const order: string[] = []
  const job = (name: string) => () =>
    new Promise<string>((resolve) => {
      order.push(`start ${name}`)
      releases.push(() => resolve(name))
    })
  const first = queue.run(job('first'))
  const second = queue.run(job('second'))
  assert.deepEqual(queue.stats, { running: 1, waiting: 1 })
  await assert.rejects(queue.run(job('third')), (error: unknown) => {
    assert.ok(error instanceof ApiError)
    assert.equal(error.statusCode, 503)
    assert.equal(error.code, 'unavailable')
    assert.equal(error.headers?.['retry-after'], '10')
    return true
  })
  assert.deepEqual(order, ['start first'], 'the second waits for the first')
  releases.shift()?.()
  assert.equal(await first, 'first')
  await new Promise((resolve) => setImmediate(resolve))
  assert.deepEqual(order, ['start first', 'start second'])
  releases.shift()?.()
  assert.equal(await second, 'second')
  assert.deepEqual(queue.stats, { running: 0, waiting: 0 })
})
