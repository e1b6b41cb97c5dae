import type { FastifyInstance } from 'fastify'
import { type Static, Type } from 'typebox'
import type { AppContext } from '../app-context.js'
import { baseUrl } from '../auth/base-url.js'
import { notFound } from '../errors.js'
import { ErrorEnvelope, ok, Success } from '../http/envelope.js'
import { CorporationParams } from '../http/params.js'
import { isMediaExtension, MEDIA_KEY, MEDIA_TYPES, type MediaExtension } from '../storage/keys.js'
import type { MediaStorage } from '../storage/storage.js'
import { storeDocument } from './documents.js'
import { readUpload } from './upload.js'
import { mediaWriteContextOf, registerUploadScope, type Uploads, uploadBody } from './uploads.js'

const errors = { '4xx': ErrorEnvelope }

const FileAnswer = Type.Object(
  { url: Type.String({ description: "The stored file, for a section's url field" }) },
  { title: 'FileStored' },
)

/**
 * The document upload route (CONTRACT §16), in its own scope with the upload body parsers
 * (./uploads.ts); an expert's photo is uploaded by src/experts/avatar-routes.ts.
 */
export async function uploadRoutes(
  app: FastifyInstance,
  context: AppContext,
  uploads: Uploads,
): Promise<void> {
  const { limit, media } = uploads
  await app.register(async (scope) => {
    await registerUploadScope(scope, uploads)
    scope.post<{ Params: Static<typeof CorporationParams> }>(
      '/v2/organization/:corporation/file',
      {
        schema: {
          operationId: 'uploadFile',
          tags: ['photos and files'],
          summary: "Upload a document (PDF, JPEG, PNG or WebP) for a section's url fields",
          params: CorporationParams,
          body: uploadBody(
            'DocumentUpload',
            ['application/pdf', 'image/jpeg', 'image/png', 'image/webp'],
            'the document (PDF, JPEG, PNG or WebP)',
          ),
          response: { 200: Success(FileAnswer), ...errors },
        },
        config: { scope: 'write' },
      },
      async (request) => {
        const upload = await readUpload(
          request,
          limit,
          ['pdf', 'jpeg', 'png', 'webp'],
          'a PDF, JPEG, PNG or WebP file',
        )
        return ok({
          url: await storeDocument(
            mediaWriteContextOf(request, media, request.params.corporation),
            upload,
            baseUrl(context, request),
          ),
        })
      },
    )
  })
}

/** `image/webp` with a non-zero quality in `Accept`: browsers that take WebP say so explicitly. */
export function acceptsWebp(accept: string | undefined): boolean {
  return (accept ?? '').split(',').some((entry) => {
    const [type, ...parameters] = entry.split(';').map((part) => part.trim().toLowerCase())
    if (type !== 'image/webp') return false
    const quality = parameters.find((parameter) => parameter.startsWith('q='))
    return quality === undefined || Number(quality.slice(2)) > 0
  })
}

const IMMUTABLE = 'public, max-age=31536000, immutable'

/** Which stored file a `/media/:org/:file` request gets, and whether the answer depends on `Accept`. */
function resolveFile(
  org: string,
  file: string,
  accept: string | undefined,
): { key: string; extension: MediaExtension; negotiated: boolean } | undefined {
  const [name = '', extension, ...rest] = file.split('.')
  if (rest.length > 0) return undefined
  if (extension === undefined) {
    const chosen: MediaExtension = acceptsWebp(accept) ? 'webp' : 'jpg'
    const key = `${org}/${name}.${chosen}`
    return MEDIA_KEY.test(key) ? { key, extension: chosen, negotiated: true } : undefined
  }
  const key = `${org}/${name}.${extension}`
  return isMediaExtension(extension) && MEDIA_KEY.test(key)
    ? { key, extension, negotiated: false }
    : undefined
}

/**
 * GET /media/:org/:file: stored photos and documents, by their unguessable content-hashed names, with
 * no token (a page's <img> cannot send one). A photo's URL without an extension is served as WebP to
 * browsers that accept it and as JPEG to others (`Vary: Accept`).
 */
export async function mediaRoutes(app: FastifyInstance, storage: MediaStorage): Promise<void> {
  app.get<{ Params: { org: string; file: string } }>(
    '/media/:org/:file',
    { schema: { hide: true } },
    async (request, reply) => {
      const wanted = resolveFile(request.params.org, request.params.file, request.headers.accept)
      const opened = wanted && (await storage.open(wanted.key))
      if (!wanted || !opened) throw notFound('The file')
      const etag = `"${wanted.key.split('/')[1]}"`
      reply
        .header('content-type', MEDIA_TYPES[wanted.extension])
        .header('cache-control', IMMUTABLE)
        .header('etag', etag)
        .header('x-content-type-options', 'nosniff')
        // Pages on other origins show these photos: helmet's same-origin default would block them.
        .header('cross-origin-resource-policy', 'cross-origin')
        .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox")
      if (wanted.negotiated) reply.header('vary', 'Accept')
      if (request.headers['if-none-match'] === etag) {
        opened.body.destroy()
        return reply.code(304).send()
      }
      reply.header('content-length', opened.bytes)
      return reply.send(opened.body)
    },
  )
}
