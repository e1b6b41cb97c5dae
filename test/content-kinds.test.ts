import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { CONTENT_API } from '../src/content/kinds.js'
import { CONTENT_KIND_NAMES, CONTENT_KINDS, type ContentKind } from '../src/db/content-kinds.js'
import { importDocument } from './helpers/content.js'
import { describeEachDialect } from './helpers/harness.js'

/**
 * The table of content kinds (src/db/content-kinds.ts, src/content/kinds.ts) reaches every place a kind
 * needs: a kind added to the table but not handled by the API, the import, the search or the dashboard
 * fails here (the compiler asks for its record below).
 */

/** A published record of each kind as an import file gives it. */
const RECORDS: Record<ContentKind, Record<string, unknown>> = {
  spotlight: { key: 'kind-post', title: 'Tidal energy', html: '<p>Tidal energy at scale</p>', published: 1 },
  question: { key: 'kind-question', question: 'Is tidal energy ready?', published: 1 },
}

test('the dashboard has the words of every content kind (generated from the table)', () => {
  const generated = JSON.parse(readFileSync('packages/dashboard/src/generated/schemas.json', 'utf8'))
  for (const kind of CONTENT_KIND_NAMES) {
    const { path, noun, labels } = CONTENT_API[kind]
    assert.deepEqual(generated.contentKinds[kind], { path, noun, ...labels }, kind)
  }
})

describeEachDialect('content kinds', (ctx) => {
  test('every kind has its read, create, update and delete routes under its path word', () => {
    const routes = new Set(ctx.routes.map((route) => route.route))
    for (const kind of CONTENT_KIND_NAMES) {
      const { path } = CONTENT_API[kind]
      for (const route of [
        `GET /v2/${path}/:corporation/:id`,
        `POST /v2/${path}/:corporation`,
        `PUT /v2/${path}/:corporation/:id`,
        `DELETE /v2/${path}/:corporation/:id`,
        `GET /v2/${path}/:corporation/search`,
      ])
        assert.ok(routes.has(route), `${kind}: ${route}`)
    }
  })

  test('every kind is imported from its list, read through the API and found by its search', async () => {
    const { orgId, auth } = ctx.tenant
    const file = Object.fromEntries(
      CONTENT_KIND_NAMES.map((kind) => [CONTENT_KINDS[kind].table, [RECORDS[kind]]]),
    )
    const result = await importDocument(ctx, orgId, file)
    for (const kind of CONTENT_KIND_NAMES) {
      const list = CONTENT_KINDS[kind].table
      assert.deepEqual(result[list], { created: 1, updated: 0, unchanged: 0 }, kind)
      const [id] = result.ids[list]
      const { path } = CONTENT_API[kind]
      const read = await ctx.inject({ method: 'GET', url: `/v2/${path}/${orgId}/${id}`, headers: auth })
      assert.equal(read.statusCode, 200, kind)
      assert.equal(read.json().data[kind][0].id, id, kind)
      const search = await ctx.inject({
        method: 'GET',
        url: `/v2/${path}/${orgId}/search?q=tidal`,
        headers: auth,
      })
      assert.equal(search.statusCode, 200, kind)
      assert.deepEqual(
        search.json().data[list].map((item: { id: number }) => item.id),
        [id],
        kind,
      )
    }
  })
})
