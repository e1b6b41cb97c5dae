import type { FastifyInstance, FastifyRequest, FastifySchemaCompiler } from 'fastify'
import { type Static, Type } from 'typebox'
import type { AppContext } from '../app-context.js'
import { requestTrail } from '../audit/request.js'
import { notFound } from '../errors.js'
import { IfMatchHeaders } from '../experts/schemas.js'
import { ErrorEnvelope, ok, Success } from '../http/envelope.js'
import { CorporationParams, ExpertParams } from '../http/params.js'
import { validatorCompiler } from '../http/validation.js'
import { memoryCounters } from '../limits/memory-counters.js'
import { profileCondition } from '../profiles/preconditions.js'
import { AvatarOutput } from '../profiles/read-sections.js'
import { isMediaExtension, MEDIA_KEY, MEDIA_TYPES, type MediaExtension } from '../storage/keys.js'
import type { MediaStorage } from '../storage/storage.js'
import { deleteAvatar, type MediaContext, setAvatar } from './avatar.js'
import { storeDocument } from './documents.js'
import { ImageQueue, uploadRateLimit } from './queue.js'
import { readUpload, registerUploadParsers } from './upload.js'

const errors = { '4xx': ErrorEnvelope }
const EXPERT = '/v2/organization/:corporation/expert/:username'

type ExpertPath = Static<typeof ExpertParams>

const Binary = (description: string) => Type.String({ format: 'binary', description })

/** The request bodies an upload route documents: a multipart form with `file`, or the raw file. */
function uploadBody(title: string, rawTypes: readonly string[], what: string) {
  const multipartForm = Type.Object(
    { file: Binary(what) },
    {
      required: ['file'],
      title,
      description: `multipart/form-data with the field file: ${what}`,
    },
  )
  return {
    content: {
      'multipart/form-data': { schema: multipartForm },
      ...Object.fromEntries(rawTypes.map((type) => [type, { schema: Binary(what) }])),
    },
  }
}

/**
 * Upload bodies are read by their own parsers (upload.ts), which give every bad body its 4xx; the body
 * schemas above only describe them in the OpenAPI document. Parameters are validated as everywhere.
 */
const uploadValidator: FastifySchemaCompiler<Parameters<typeof validatorCompiler>[0]['schema']> = (route) =>
  route.httpPart === 'body' ? (data: unknown) => ({ value: data }) : validatorCompiler(route)

const FocusQuery = Type.Object(
  {
    focus_x: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 1,
        description: 'Crop centre, as a fraction of the width (0 left, 1 right)',
        'x-message': 'must be a number from 0 to 1',
      }),
    ),
    focus_y: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 1,
        description: 'Crop centre, as a fraction of the height (0 top, 1 bottom)',
        'x-message': 'must be a number from 0 to 1',
      }),
    ),
  },
  { additionalProperties: false },
)

const AvatarAnswer = Type.Object({ avatar: AvatarOutput }, { title: 'AvatarStored' })
const FileAnswer = Type.Object(
  { url: Type.String({ description: "The stored file, for a section's url field" }) },
  { title: 'FileStored' },
)

/** Where the URLs of stored files point: `EXPERTDIR_PUBLIC_URL`, else the address the request came to. */
function baseUrlOf(context: AppContext, request: FastifyRequest): string {
  return context.config.publicUrl ?? `${request.protocol}://${request.host}`
}

/** The photo and document upload routes (CONTRACT §16), in their own scope with their own body parsers. */
export async function uploadRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  const limit = context.config.uploadMaxBytes
  const media: MediaContext = {
    db: context.db,
    storage: context.storage,
    now: context.now,
    report: (error) =>
      app.log.warn({ err: error }, 'a stored file could not be deleted; media gc will remove it'),
    images: new ImageQueue(context.config.imageConcurrency, context.config.imageQueueMax),
  }
  // Counted in this process, like the image queue the limit protects.
  const takeUpload = uploadRateLimit(memoryCounters(context.now), context.config.rateLimitUploads)

  await app.register(async (scope) => {
    await registerUploadParsers(scope, limit, 'image/jpeg, image/png, image/webp or application/pdf')
    scope.setValidatorCompiler(uploadValidator)
    // Counted before the body is read: a client over its allowance costs no upload bytes.
    if (takeUpload) scope.addHook('onRequest', async (request) => takeUpload(request.principal.tokenHash))
    scope.put<{ Params: ExpertPath; Querystring: Static<typeof FocusQuery> }>(
      `${EXPERT}/avatar`,
      {
        schema: {
          operationId: 'setExpertAvatar',
          tags: ['photos and files'],
          summary: "Upload an expert's photo: a JPEG, PNG or WebP of at least 200x200 pixels",
          params: ExpertParams,
          headers: IfMatchHeaders,
          querystring: FocusQuery,
          body: uploadBody(
            'PhotoUpload',
            ['image/jpeg', 'image/png', 'image/webp'],
            'the photo (JPEG, PNG or WebP)',
          ),
          response: { 200: Success(AvatarAnswer), ...errors },
        },
        config: { scope: 'write' },
      },
      async (request, reply) => {
        const upload = await readUpload(request, limit, ['jpeg', 'png', 'webp'], 'a JPEG, PNG or WebP image')
        const { focus_x: x, focus_y: y } = request.query
        const focus = x === undefined && y === undefined ? undefined : { x: x ?? 0.5, y: y ?? 0.5 }
        const { corporation, username } = request.params
        return ok({
          avatar: await setAvatar(
            media,
            corporation,
            username,
            upload.bytes,
            requestTrail(request),
            focus,
            profileCondition(request, reply, corporation, 'expert', username),
          ),
        })
      },
    )

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
            media,
            request.params.corporation,
            upload,
            baseUrlOf(context, request),
            requestTrail(request),
          ),
        })
      },
    )
  })

  app.delete<{ Params: ExpertPath }>(
    `${EXPERT}/avatar`,
    {
      schema: {
        operationId: 'deleteExpertAvatar',
        tags: ['photos and files'],
        summary: "Delete an expert's photo and its files",
        params: ExpertParams,
        headers: IfMatchHeaders,
        response: { 200: Success(AvatarAnswer), ...errors },
      },
      config: { scope: 'write' },
    },
    async (request, reply) => {
      const { corporation, username } = request.params
      await deleteAvatar(
        media,
        corporation,
        username,
        requestTrail(request),
        profileCondition(request, reply, corporation, 'expert', username),
      )
      return ok({ avatar: { s: {}, m: {}, o: {}, l: {} } })
    },
  )
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
