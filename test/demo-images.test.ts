import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { parse } from 'node-html-parser'
import { type ServerProcess, startServerProcess } from './helpers/cli.js'

/**
 * The demo a newcomer starts (`expertdir serve --demo`): every picture its public pages show is served
 * by the app itself, over real HTTP, as an image.
 */
describe('the demo directory', () => {
  let dir = ''
  let server: ServerProcess
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'expertdir-demo-images-'))
    server = await startServerProcess(join(dir, 'demo.db'), {
      args: ['--demo'],
      env: { EXPERTDIR_MEDIA_DIR: join(dir, 'media') },
    })
  })
  after(async () => {
    server?.child.kill('SIGTERM')
    await server?.exited
    rmSync(dir, { recursive: true, force: true })
  })

  test('shows on its public pages only images that answer 200 with an image type', async () => {
    const sitemap = await (await fetch(`${server.base}/directory/1/sitemap.xml`)).text()
    const pages = [...sitemap.matchAll(/<loc>([^<]+)<\/loc>/g)].map((match) => match[1] ?? '')
    assert.ok(pages.length > 12, `the sitemap lists ${pages.length} pages`)
    const images = new Map<string, string>()
    for (const page of pages) {
      const response = await fetch(page.replace(/^https?:\/\/[^/]+/, server.base))
      assert.equal(response.status, 200, page)
      const html = parse(await response.text())
      for (const img of html.querySelectorAll('img')) images.set(img.getAttribute('src') ?? '', page)
      for (const meta of html.querySelectorAll('meta[property="og:image"], meta[name="twitter:image"]'))
        images.set(meta.getAttribute('content') ?? '', page)
    }
    // A portrait on each of the dozen profiles and an image on each post, at least.
    assert.ok(images.size >= 15, `only ${images.size} images on the demo's pages`)
    for (const [src, page] of images) {
      assert.ok(src, `an image without a source on ${page}`)
      const response = await fetch(new URL(src, page.replace(/^https?:\/\/[^/]+/, server.base)))
      assert.equal(response.status, 200, `${src} (on ${page})`)
      assert.match(response.headers.get('content-type') ?? '', /^image\//, `${src} (on ${page})`)
      await response.arrayBuffer()
    }
  })
})
