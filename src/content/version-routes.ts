import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../app-context.js'
import { writeContextOf } from '../audit/write-context.js'
import { CONTENT_KIND_NAMES } from '../db/content-kinds.js'
import {
  ItemVersionParams,
  VersionDetail,
  VersionList,
  VersionListQuery,
  VersionRestored,
} from '../editorial/schemas.js'
import { readVersion, readVersions, restoreVersion } from '../editorial/versions.js'
import { ErrorEnvelope, ok, Success } from '../http/envelope.js'
import { DEFAULT_PAGE_SIZE } from '../http/paging.js'
import { typedRoutes } from '../http/typed-routes.js'
import { CONTENT_API } from './kinds.js'

const errors = { '4xx': ErrorEnvelope }
const tags = ['editorial']

/**
 * The versions of posts (`/v2/spotlight/:corporation/:id/versions`) and Q&A items (`/v2/qanda/...`), with
 * their diffs and restores (CONTRACT §21, docs/editorial.md).
 */
export async function contentVersionRoutes(untyped: FastifyInstance, context: AppContext): Promise<void> {
  const app = typedRoutes(untyped)
  const { db } = context

  for (const kind of CONTENT_KIND_NAMES) {
    const { path, params, labels } = CONTENT_API[kind]
    const word = kind === 'spotlight' ? 'Post' : 'Question'
    app.get(
      `/v2/${path}/:corporation/:id/versions`,
      {
        schema: {
          operationId: `list${word}Versions`,
          tags,
          summary: `The versions of a ${labels.singular}, newest first`,
          params,
          querystring: VersionListQuery,
          response: { 200: Success(VersionList), ...errors },
        },
        config: { scope: 'read' },
      },
      async (request) => {
        const { corporation, id } = request.params
        const page = { page_size: request.query.page_size ?? DEFAULT_PAGE_SIZE, cursor: request.query.cursor }
        return ok(await readVersions(db, corporation, { kind, id }, page))
      },
    )
    app.get(
      `/v2/${path}/:corporation/:id/versions/:version`,
      {
        schema: {
          operationId: `get${word}Version`,
          tags,
          summary: `One version of a ${labels.singular}, with what it changed`,
          params: ItemVersionParams,
          response: { 200: Success(VersionDetail), ...errors },
        },
        config: { scope: 'read' },
      },
      async (request) => {
        const { corporation, id, version } = request.params
        return ok(await readVersion(db, corporation, { kind, id }, version))
      },
    )
    app.post(
      `/v2/${path}/:corporation/:id/versions/:version/restore`,
      {
        schema: {
          operationId: `restore${word}Version`,
          tags,
          summary: `Restore a version of a ${labels.singular}, as a new change`,
          params: ItemVersionParams,
          response: { 200: Success(VersionRestored), ...errors },
        },
        config: { scope: 'write' },
      },
      async (request) => {
        const { corporation, id, version } = request.params
        return ok(await restoreVersion(writeContextOf(request, context, corporation), { kind, id }, version))
      },
    )
  }
}
