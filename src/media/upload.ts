import multipart from '@fastify/multipart'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { ApiError, validationError } from '../errors.js'
import { SNIFFED_MEDIA_TYPES, type SniffedType, sniffType } from './images.js'

/** The raw bodies an upload route takes besides `multipart/form-data`. */
export const RAW_UPLOAD_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'application/pdf'] as const

/** An upload's bytes, its type as sniffed from them, and the type the client claimed (if it named one). */
export interface Upload {
  bytes: Buffer
  type: SniffedType
}

const sizeText = (bytes: number) =>
  bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${Math.round(bytes / 1024)} KiB`

const tooLarge = (limit: number) =>
  new ApiError(
    'payload_too_large',
    `The file is larger than the ${sizeText(limit)} limit: send a smaller one.`,
  )

const unsupported = (message: string) => new ApiError('unsupported_media_type', message)

/**
 * What a multipart body may hold besides its file: the boundaries, the part headers and at most
 * `MULTIPART_FIELDS` small fields of `MULTIPART_FIELD_BYTES` each.
 */
const MULTIPART_FIELDS = 10
const MULTIPART_FIELD_BYTES = 1024
export const MULTIPART_OVERHEAD_BYTES = 64 * 1024

/** The most bytes a whole upload request body may have: the file and the multipart envelope around it. */
export const uploadBodyLimit = (limit: number) => limit + MULTIPART_OVERHEAD_BYTES

/** The whole body over its bound: the connection is closed after the answer, so the rest is never read. */
const bodyTooLarge = (limit: number) =>
  new ApiError(
    'payload_too_large',
    `The request body is larger than the ${sizeText(limit)} file limit allows: send the file alone, as multipart/form-data (field file) or as the body.`,
    { headers: { connection: 'close' } },
  )

/**
 * The body parsers of the upload routes, registered in their own scope: `multipart/form-data` (the
 * file in the field `file`, read by `readUpload`) and raw bodies of the types above, each at most
 * `limit` bytes (413 beyond, before the rest is read); any other body type is 415.
 */
export async function registerUploadParsers(
  scope: FastifyInstance,
  limit: number,
  accepted: string,
): Promise<void> {
  scope.removeAllContentTypeParsers()
  await scope.register(multipart, {
    limits: {
      fileSize: limit,
      files: 1,
      fields: MULTIPART_FIELDS,
      fieldSize: MULTIPART_FIELD_BYTES,
      parts: MULTIPART_FIELDS + 1,
      headerPairs: 100,
    },
  })
  // The multipart reader bounds the file, the fields and the parts, but not the bytes around them (a
  // preamble before the first boundary, say): a declared length over the whole body's bound is 413 here,
  // before any parser runs, and `readUpload` counts the bytes of a multipart body as they are read.
  scope.addHook('preParsing', async (request) => {
    const declared = Number(request.headers['content-length'])
    if (Number.isFinite(declared) && declared > uploadBodyLimit(limit)) throw bodyTooLarge(limit)
  })
  scope.addContentTypeParser([...RAW_UPLOAD_TYPES], (request, payload, done) => {
    const declared = Number(request.headers['content-length'])
    if (Number.isFinite(declared) && declared > limit) {
      payload.resume()
      done(tooLarge(limit), undefined)
      return
    }
    const chunks: Buffer[] = []
    let received = 0
    let failed = false
    payload.on('data', (chunk: Buffer) => {
      if (failed) return
      received += chunk.length
      if (received > limit) {
        failed = true
        chunks.length = 0
        done(tooLarge(limit), undefined)
        return
      }
      chunks.push(chunk)
    })
    payload.on('end', () => {
      if (!failed) done(null, Buffer.concat(chunks))
    })
    payload.on('error', (error) => {
      if (!failed) {
        failed = true
        done(error, undefined)
      }
    })
  })
  scope.addContentTypeParser('*', (_request, payload, done) => {
    payload.resume()
    done(
      unsupported(`Send the file as multipart/form-data (field file) or as a ${accepted} body.`),
      undefined,
    )
  })
}

/** Errors of the multipart reader a client causes (a cut or malformed body): 400, or 413 for the size. */
function multipartError(error: unknown, limit: number): ApiError | undefined {
  if (!(error instanceof Error) || error instanceof ApiError) return undefined
  const code = 'code' in error ? String(error.code) : ''
  if (code === 'FST_REQ_FILE_TOO_LARGE') return tooLarge(limit)
  if (code === 'FST_PARTS_LIMIT' || code === 'FST_FILES_LIMIT' || code === 'FST_FIELDS_LIMIT')
    return new ApiError(
      'payload_too_large',
      `The form has more parts than an upload takes: send one file part named file and at most ${MULTIPART_FIELDS} small fields.`,
      { headers: { connection: 'close' } },
    )
  if (code.startsWith('FST_') || /multipart|boundary|form|unexpected end/i.test(error.message))
    return validationError([
      { field: 'file', message: 'must be sent in a well-formed multipart/form-data body' },
    ])
  return undefined
}

/**
 * Counts the bytes of the request's body as the multipart reader takes them: past `max`, the reader is
 * cut off and `exceeded` rejects with `error()`.
 */
function countedBody(
  request: FastifyRequest,
  max: number,
  error: () => ApiError,
): { exceeded: Promise<never>; dispose: () => void } {
  const raw = request.raw
  let received = 0
  let reject: (reason: ApiError) => void = () => {}
  const exceeded = new Promise<never>((_resolve, rejectWith) => {
    reject = rejectWith
  })
  // Nobody may be waiting when the bound is crossed between the two reads: not an unhandled rejection.
  exceeded.catch(() => {})
  const onData = (chunk: Buffer) => {
    received += chunk.length
    if (received <= max) return
    raw.off('data', onData)
    raw.unpipe()
    raw.pause()
    reject(error())
  }
  raw.on('data', onData)
  return { exceeded, dispose: () => raw.off('data', onData) }
}

async function uploadedBytes(
  request: FastifyRequest,
  limit: number,
): Promise<{ bytes: Buffer; declared: string }> {
  if (request.isMultipart()) {
    // The reader is piped first: a data listener added before would let the first bytes flow past it.
    const first = request.file()
    const cap = countedBody(request, uploadBodyLimit(limit), () => bodyTooLarge(limit))
    try {
      const part = await Promise.race([first, cap.exceeded])
      if (!part) throw validationError([{ field: 'file', message: 'is required: a file part named file' }])
      if (part.fieldname !== 'file')
        throw validationError([
          { field: part.fieldname, message: 'is not accepted here: send the file as the field file' },
        ])
      return { bytes: await Promise.race([part.toBuffer(), cap.exceeded]), declared: part.mimetype }
    } catch (error) {
      throw multipartError(error, limit) ?? error
    } finally {
      cap.dispose()
    }
  }
  if (!Buffer.isBuffer(request.body) || request.body.length === 0)
    throw validationError([{ field: 'file', message: 'is required: send the file as the request body' }])
  return { bytes: request.body, declared: String(request.headers['content-type'] ?? '') }
}

/**
 * The uploaded file, its type read from its bytes. A type outside `allowed` is 415, and so is a file
 * whose declared type (the body's, or the part's) names another of the types we know.
 */
export async function readUpload(
  request: FastifyRequest,
  limit: number,
  allowed: readonly SniffedType[],
  what: string,
): Promise<Upload> {
  const { bytes, declared } = await uploadedBytes(request, limit)
  const type = sniffType(bytes)
  if (!type || !allowed.includes(type)) throw unsupported(`The file is not ${what}.`)
  const claimed = declared.split(';')[0]?.trim().toLowerCase() ?? ''
  const known = Object.entries(SNIFFED_MEDIA_TYPES).find(([, mediaType]) => mediaType === claimed)
  if (known && known[0] !== type)
    throw unsupported(
      `The file is ${SNIFFED_MEDIA_TYPES[type]} but was sent as ${claimed}: send it with its own type.`,
    )
  return { bytes, type }
}
