import assert from 'node:assert/strict'
import { before, test } from 'node:test'
import { up as sanitizeStoredEmbeds } from '../src/db/migrations/0012_sanitize_embeds.js'
import { createExpert, describeEachDialect, envelope, type TestContext } from './helpers/harness.js'

const SLIDESHARE =
  '<iframe src="https://www.slideshare.net/slideshow/embed_code/key/abc123" width="595" height="485" ' +
  'frameborder="0" allowfullscreen></iframe>'

describeEachDialect('the SlideShare embed field', (ctx: TestContext) => {
  let base = ''
  before(async () => {
    const username = await createExpert(ctx, ctx.tenant)
    base = `/v2/organization/${ctx.tenant.orgId}/expert/${username}`
  })

  const post = (embed: string) =>
    ctx.inject({
      method: 'POST',
      url: `${base}/slideshare`,
      headers: ctx.tenant.auth,
      payload: { title: 'Slides', url: 'https://www.slideshare.net/deck', embed },
    })
  const stored = async (id: number) => {
    const response = await ctx.inject({
      method: 'GET',
      url: `${base}/slideshare/${id}`,
      headers: ctx.tenant.auth,
    })
    return response.json().data.slideshare[0].embed as string | null
  }
  const profileEmbeds = async () => {
    const response = await ctx.inject({ method: 'GET', url: base, headers: ctx.tenant.auth })
    return (response.json().data.slideshare as { id: number; embed: string | null }[]).map((e) => e.embed)
  }

  test("keeps a player's embed code as the player hands it out, minus what is not allowed", async () => {
    const code =
      `${SLIDESHARE.replace('allowfullscreen>', 'allowfullscreen style="border:1px" onload="steal()">')}` +
      '<div style="margin-bottom:5px"><strong><a href="https://www.slideshare.net/deck" title="Deck">Deck</a></strong></div>'
    const response = await post(code)
    assert.equal(response.statusCode, 200, response.body)
    const embed = await stored(response.json().data.id)
    assert.match(
      String(embed),
      /^<iframe src="https:\/\/www\.slideshare\.net\/slideshow\/embed_code\/key\/abc123"/,
    )
    assert.match(String(embed), /<a href="https:\/\/www\.slideshare\.net\/deck" title="Deck">Deck<\/a>/)
    assert.doesNotMatch(String(embed), /onload|style=|steal/)
    for (const player of [
      '<iframe src="https://www.youtube.com/embed/dQw4w9WgXcQ"></iframe>',
      '<iframe src="https://player.vimeo.com/video/76979871"></iframe>',
    ]) {
      const written = await post(player)
      assert.equal(await stored(written.json().data.id), player)
    }
  })

  test('removes scripts, event handlers, javascript: and data: iframes, foreign and http players', async () => {
    const attacks = [
      '<script>alert(document.cookie)</script>',
      '<img src="x" onerror="alert(1)">',
      '<iframe src="javascript:alert(1)"></iframe>',
      '<iframe src="data:text/html,<script>alert(1)</script>"></iframe>',
      '<iframe src="https://evil.example/frame"></iframe>',
      '<iframe src="http://www.slideshare.net/slideshow/embed_code/key/abc123"></iframe>',
      '<iframe src="//www.youtube.com/embed/x"></iframe>',
      '<a href="javascript:alert(1)">slides</a>',
      '<svg onload="alert(1)"></svg>',
      '<object data="https://evil.example/x.swf"></object><embed src="https://evil.example/x.swf">',
    ]
    for (const attack of attacks) {
      const response = await post(`${attack}${SLIDESHARE}`)
      assert.equal(response.statusCode, 200, `${attack}: ${response.body}`)
      const embed = String(await stored(response.json().data.id))
      assert.doesNotMatch(
        embed,
        /<script|onerror|onload|javascript:|data:|evil\.example|http:|src="\/\//i,
        attack,
      )
      assert.ok(embed.endsWith(SLIDESHARE), `${attack} -> ${embed}`)
    }
  })

  test('a plain http(s) URL is stored as sent; anything that is neither embed code nor URL is 400', async () => {
    const url = 'https://www.slideshare.net/slideshow/embed_code/key/abc123?startSlide=2&hostedIn=slideshare'
    const response = await post(url)
    assert.equal(response.statusCode, 200)
    assert.equal(await stored(response.json().data.id), url)
    for (const bad of ['javascript:alert(1)', 'data:text/html,x', 'see the slides', 'ftp://example.org/x']) {
      const refused = await post(bad)
      assert.equal(refused.statusCode, 400, bad)
      assert.deepEqual(envelope(refused).error?.details, [
        { field: 'embed', message: "must be an embed code (the player's <iframe ...>) or an http(s) URL" },
      ])
    }
  })

  test('an update is sanitized like a create', async () => {
    const created = await post(SLIDESHARE)
    const id = created.json().data.id
    const updated = await ctx.inject({
      method: 'PUT',
      url: `${base}/slideshare/${id}`,
      headers: ctx.tenant.auth,
      payload: { embed: `<script>alert(1)</script>${SLIDESHARE}` },
    })
    assert.equal(updated.statusCode, 200)
    assert.equal(await stored(id), SLIDESHARE)
  })

  test('migration 0012 sanitizes embeds stored before, and the profile read shows it at once', async () => {
    const { db } = ctx.testDatabase.database
    const created = await post(SLIDESHARE)
    const id = Number(created.json().data.id)
    const plain = await post('https://www.slideshare.net/deck?a=1&b=2')
    // Read once so that a stored read document exists, then plant what older versions stored verbatim.
    await profileEmbeds()
    const row = await db
      .selectFrom('profile_items')
      .select('data')
      .where('id', '=', id)
      .executeTakeFirstOrThrow()
    const dirty = `<img src=x onerror="alert(1)"><iframe src="javascript:alert(1)"></iframe>${SLIDESHARE}`
    await db
      .updateTable('profile_items')
      .set({ data: JSON.stringify({ ...JSON.parse(row.data), embed: dirty }) })
      .where('id', '=', id)
      .execute()
    await sanitizeStoredEmbeds(db as never)
    const clean = '<img src="x" /><iframe></iframe>'
    assert.equal(await stored(id), `${clean}${SLIDESHARE}`)
    const embeds = await profileEmbeds()
    assert.ok(embeds.includes(`${clean}${SLIDESHARE}`), JSON.stringify(embeds))
    assert.ok(!embeds.some((embed) => String(embed).includes('onerror')))
    assert.equal(await stored(plain.json().data.id), 'https://www.slideshare.net/deck?a=1&b=2')
  })
})
