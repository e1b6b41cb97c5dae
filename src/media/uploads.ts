import type { FastifyBaseLogger, FastifyInstance, FastifySchemaCompiler } from 'fastify'
import { Type } from 'typebox'
import type { AppContext } from '../app-context.js'
import type { AuthenticatedRequest } from '../audit/request.js'
import { writeContextOf } from '../audit/write-context.js'
import { validatorCompiler } from '../http/validation.js'
import { memoryCounters } from '../limits/memory-counters.js'
import type { MediaContext, MediaWriteContext } from './avatar.js'
import { ImageQueue, uploadRateLimit } from './queue.js'
import { registerUploadParsers } from './upload.js'

/**
 * What every upload route of the running app shares (the photo's in src/experts/avatar-routes.ts, the
 * document's in ./routes.ts): one image queue and one per-token allowance for both.
 */
export interface Uploads {
  /** The largest upload, in bytes. */
  limit: number
  media: MediaContext
  /** Counts an upload against its token's allowance (./queue.ts); absent when uploads are not limited. */
  take: ((tokenHash: string) => Promise<void>) | undefined
}

export function createUploads(context: AppContext, log: FastifyBaseLogger): Uploads {
  return {
    limit: context.config.uploadMaxBytes,
    media: {
      db: context.db,
      storage: context.storage,
      now: context.now,
      report: (error) =>
        log.warn({ err: error }, 'a stored file could not be deleted; media gc will remove it'),
      images: new ImageQueue(context.config.imageConcurrency, context.config.imageQueueMax),
    },
    // Counted in this process, like the image queue the limit protects.
    take: uploadRateLimit(memoryCounters(context.now), context.config.rateLimitUploads),
  }
}

/** The write context of an upload request to `orgId`, with the app's media store. */
export function mediaWriteContextOf(
  request: AuthenticatedRequest,
  media: MediaContext,
  orgId: number,
): MediaWriteContext {
  const { storage, report, images } = media
  return { ...writeContextOf(request, media, orgId), storage, report, images }
}

/**
 * Upload bodies are read by their own parsers (upload.ts), which give every bad body its 4xx; the body
 * schemas only describe them in the OpenAPI document. Parameters are validated as everywhere.
 */
const uploadValidator: FastifySchemaCompiler<Parameters<typeof validatorCompiler>[0]['schema']> = (route) =>
  route.httpPart === 'body' ? (data: unknown) => ({ value: data }) : validatorCompiler(route)

/** Readies `scope` (a scope of its own) for upload routes: their body parsers, validator and allowance. */
export async function registerUploadScope(scope: FastifyInstance, uploads: Uploads): Promise<void> {
  await registerUploadParsers(scope, uploads.limit, 'image/jpeg, image/png, image/webp or application/pdf')
  scope.setValidatorCompiler(uploadValidator)
  const { take } = uploads
  // Counted before the body is read: a client over its allowance costs no upload bytes.
  if (take) scope.addHook('onRequest', async (request) => take(request.principal.tokenHash))
}

const Binary = (description: string) => Type.String({ format: 'binary', description })

/** The request bodies an upload route documents: a multipart form with `file`, or the raw file. */
export function uploadBody(title: string, rawTypes: readonly string[], what: string) {
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
