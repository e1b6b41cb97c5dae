/**
 * Photo uploads (`npm run bench -- --uploads-only`, or after the other measurements): a 2 MP JPEG sent
 * to `PUT .../avatar` of the app in its own process, which makes the four renditions in WebP and JPEG,
 * stores them in a temporary media folder and records them. Throughput one upload at a time and with 8
 * at once, and the app process's resident memory (RSS) while the 8 run, sampled from /proc every 20 ms.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import sharp from 'sharp'
import { cliWriteContext } from '../src/audit/write-context.js'
import { createClient } from '../src/auth/clients.js'
import { openDatabase } from '../src/db/database.js'
import { migrateToLatest } from '../src/db/migrate.js'
import { createExpert } from '../src/experts/service.js'
import { createOrganization } from '../src/organizations/repository.js'

interface AppProcess {
  url: string
  process: { pid?: number | undefined }
  stop(): Promise<void>
}

export interface UploadBenchOptions {
  startApp(databaseUrl: string, env: NodeJS.ProcessEnv): Promise<AppProcess>
  log(message: string): void
  quick: boolean
}

/** A 1920x1080 photo-like JPEG (a gradient with grain, quality 85): about the size a phone sends. */
async function twoMegapixelJpeg(): Promise<Buffer> {
  const width = 1920
  const height = 1080
  const gradient = Buffer.alloc(width * height * 3)
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const at = (y * width + x) * 3
      gradient[at] = (x * 255) / width
      gradient[at + 1] = (y * 255) / height
      gradient[at + 2] = 128
    }
  const grain = await sharp({
    create: {
      width,
      height,
      channels: 3,
      background: '#808080',
      noise: { type: 'gaussian', mean: 128, sigma: 12 },
    },
  })
    .png()
    .toBuffer()
  return sharp(gradient, { raw: { width, height, channels: 3 } })
    .composite([{ input: grain, blend: 'overlay' }])
    .jpeg({ quality: 85 })
    .withExif({ IFD0: { Make: 'Bench', Model: 'Camera' } })
    .toBuffer()
}

function accessTokenOf(body: unknown): string {
  const data = typeof body === 'object' && body !== null && 'data' in body ? body.data : undefined
  const token =
    typeof data === 'object' && data !== null && 'accessToken' in data ? data.accessToken : undefined
  if (typeof token !== 'string') throw new Error(`token request failed: ${JSON.stringify(body)}`)
  return token
}

function rssMiB(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kib = Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0)
  return Math.round((kib / 1024) * 10) / 10
}

export async function uploadsBench(options: UploadBenchOptions): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'expertdir-bench-uploads-'))
  const databaseUrl = join(dir, 'bench.sqlite')
  const database = openDatabase(databaseUrl)
  const experts: string[] = []
  let client: { client_id: string; client_secret: string }
  try {
    await migrateToLatest(database.db)
    const org = await createOrganization(database.db, { name: 'Upload bench' }, Date.now())
    client = await createClient(database.db, org.id, 'bench', Date.now())
    for (let i = 0; i < 8; i++) {
      experts.push(
        await createExpert(cliWriteContext(database.db, org.id, 'bench', Date.now()), {
          firstname: 'Photo',
          lastname: `Bench ${i}`,
          job_title: 'Sitter',
          email: `sitter${i}@example.org`,
          company: 'Bench',
        }),
      )
    }
  } finally {
    await database.close()
  }
  const photo = await twoMegapixelJpeg()
  const app = await options.startApp(databaseUrl, { EXPERTDIR_MEDIA_DIR: join(dir, 'media') })
  const pid = app.process.pid
  try {
    const response = await fetch(`${app.url}/v2/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', ...client }).toString(),
    })
    const token = accessTokenOf(await response.json())
    const upload = async (username: string) => {
      const response = await fetch(`${app.url}/v2/organization/1/expert/${username}/avatar`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'image/jpeg' },
        body: photo,
      })
      if (response.status !== 200)
        throw new Error(`upload failed: ${response.status} ${await response.text()}`)
      await response.arrayBuffer()
    }
    const rounds = options.quick ? 8 : 40
    for (let i = 0; i < 4; i++) await upload(experts[0] ?? '')
    const idleRss = pid ? rssMiB(pid, 'VmRSS') : 0

    let began = performance.now()
    for (let i = 0; i < rounds / 2; i++) await upload(experts[i % 8] ?? '')
    const sequential = rounds / 2 / ((performance.now() - began) / 1000)
    options.log(`uploads: one at a time ${sequential.toFixed(1)} photos/s`)

    let peak = idleRss
    const sampler = setInterval(() => {
      if (pid) peak = Math.max(peak, rssMiB(pid, 'VmRSS'))
    }, 20)
    began = performance.now()
    await Promise.all(
      experts.map(async (username) => {
        for (let i = 0; i < rounds / 8; i++) await upload(username)
      }),
    )
    const concurrent = rounds / ((performance.now() - began) / 1000)
    clearInterval(sampler)
    options.log(
      `uploads: 8 at once ${concurrent.toFixed(1)} photos/s, RSS ${idleRss} MiB idle, peak ${peak} MiB`,
    )
    return {
      photo: { width: 1920, height: 1080, bytes: photo.length, format: 'jpeg' },
      uploads: rounds * 1.5,
      photosPerSecond: {
        sequential: Math.round(sequential * 10) / 10,
        concurrent8: Math.round(concurrent * 10) / 10,
      },
      rssMiB: {
        idle: idleRss,
        peakWith8Uploads: peak,
        processHighWaterMark: pid ? rssMiB(pid, 'VmHWM') : null,
      },
    }
  } finally {
    await app.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}
