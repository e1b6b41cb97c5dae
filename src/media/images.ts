import { createRequire } from 'node:module'
import type { Sharp, SharpOptions } from 'sharp'

/** sharp (libvips), loaded with the first photo: about 30 MiB that a process serving reads never needs. */
let sharpModule: typeof import('sharp').default | undefined
export function sharp(input: Buffer, options: SharpOptions = {}): Sharp {
  const load: typeof import('sharp').default = sharpModule ?? createRequire(import.meta.url)('sharp')
  sharpModule = load
  return load(input, options)
}

import { ApiError, validationError } from '../errors.js'

/** What an upload is, read from its first bytes: never from the header the client sent. */
export type SniffedType = 'jpeg' | 'png' | 'webp' | 'pdf'

export const SNIFFED_MEDIA_TYPES: Record<SniffedType, string> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  pdf: 'application/pdf',
}

export function sniffType(bytes: Buffer): SniffedType | undefined {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg'
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png'
  if (bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP') return 'webp'
  if (bytes.toString('latin1', 0, 5) === '%PDF-') return 'pdf'
  return undefined
}

/** CONTRACT §16: at least 200x200 pixels, at most 40,000,000. */
export const MIN_SIDE = 200
export const MAX_PIXELS = 40_000_000

/** The square renditions of a photo, by their profile key, and their largest side (never upscaled). */
export const SQUARE_SIZES = [
  { name: 's', size: 64 },
  { name: 'm', size: 200 },
  { name: 'l', size: 400 },
] as const

export type RenditionName = (typeof SQUARE_SIZES)[number]['name'] | 'o'

/** Where a crop centres: fractions of the oriented photo's width and height (0.5, 0.5: the middle). */
export interface FocusPoint {
  x: number
  y: number
}

/** One rendition of a photo in both formats a browser may get (docs/api.md, "Photos and files"). */
export interface Rendition {
  name: RenditionName
  width: number
  height: number
  webp: Buffer
  jpeg: Buffer
}

const fileError = (message: string) => validationError([{ field: 'file', message }])

/** Decoding options: libvips itself refuses a pixel count over the limit, whatever the header claimed. */
const decoding = { limitInputPixels: MAX_PIXELS, failOn: 'truncated' } as const

function isSharpError(error: unknown): boolean {
  return error instanceof Error && !(error instanceof ApiError)
}

/**
 * The oriented size of an image, from its header alone (nothing is decoded), checked against the
 * limits: too many pixels is 413 before any decoding, too small is 400.
 */
export async function checkedSize(
  bytes: Buffer,
  { minSide }: { minSide: number },
): Promise<{ width: number; height: number }> {
  let width: number | undefined
  let height: number | undefined
  try {
    const metadata = await sharp(bytes, { limitInputPixels: false }).metadata()
    width = metadata.autoOrient?.width ?? metadata.width
    height = metadata.autoOrient?.height ?? metadata.height
  } catch (error) {
    if (isSharpError(error)) throw fileError('is not a readable image')
    throw error
  }
  if (!width || !height) throw fileError('is not a readable image')
  if (width * height > MAX_PIXELS)
    throw new ApiError(
      'payload_too_large',
      `The image has ${width}x${height} pixels, more than the 40 megapixels allowed: send a smaller one.`,
    )
  if (width < minSide || height < minSide)
    throw fileError(`must be at least ${minSide}x${minSide} pixels (this one is ${width}x${height})`)
  return { width, height }
}

/** The longest side of a photo's `o` rendition: a larger upload is reduced, never kept at full size. */
export const ORIGINAL_MAX_SIDE = 2048

/** The longest side of an image stored as a document. */
export const DOCUMENT_MAX_SIDE = 4096

let decodes = 0

/** How many uploaded images this process has decoded (each upload should cost one). */
export function imageDecodes(): number {
  return decodes
}

/**
 * One decoding of the upload, oriented and, when its longer side is over `maxSide`, reduced to it as
 * it loads: libvips then decodes a JPEG at 1/2, 1/4 or 1/8 of its size and a WebP at the reduced size
 * directly, instead of decoding every pixel and scaling afterwards.
 */
function reducedImage(bytes: Buffer, size: { width: number; height: number }, maxSide: number): Sharp {
  decodes++
  const image = sharp(bytes, decoding).autoOrient()
  return Math.max(size.width, size.height) > maxSide
    ? image.resize(maxSide, maxSide, { fit: 'inside' })
    : image
}

/** Decoded sRGB pixels, 8 bits a channel, from which every rendition is cut. */
interface Pixels {
  data: Buffer
  width: number
  height: number
  raw: { width: number; height: number; channels: 1 | 2 | 3 | 4 }
}

async function decodedOnce(bytes: Buffer, size: { width: number; height: number }): Promise<Pixels> {
  let result: { data: Buffer; info: { width: number; height: number; channels: 1 | 2 | 3 | 4 } }
  try {
    result = await reducedImage(bytes, size, ORIGINAL_MAX_SIDE)
      .toColourspace('srgb')
      .raw({ depth: 'uchar' })
      .toBuffer({ resolveWithObject: true })
  } catch (error) {
    if (isSharpError(error)) throw fileError('is not a readable image (it may be truncated or corrupt)')
    throw error
  }
  const { data, info } = result
  return {
    data,
    width: info.width,
    height: info.height,
    raw: { width: info.width, height: info.height, channels: info.channels },
  }
}

/** Runs a sharp output; a decoding failure (a truncated or corrupt file) is the client's 400. */
async function encoded(pipeline: Sharp): Promise<Buffer> {
  try {
    return await pipeline.toBuffer()
  } catch (error) {
    if (isSharpError(error)) throw fileError('is not a readable image (it may be truncated or corrupt)')
    throw error
  }
}

const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value))

/** The square of side `min(width, height)` centred on the focus point, kept inside the photo. */
function squareAround(width: number, height: number, focus: FocusPoint) {
  const side = Math.min(width, height)
  return {
    left: clamp(Math.round(focus.x * width - side / 2), 0, width - side),
    top: clamp(Math.round(focus.y * height - side / 2), 0, height - side),
    width: side,
    height: side,
  }
}

/**
 * The renditions of an uploaded photo: s, m and l square crops (64, 200, 400 px, around the focus
 * point; a photo smaller than a size gives a smaller square, never an upscaled one) and the whole photo
 * (o), at most `ORIGINAL_MAX_SIDE` pixels on its longer side. Orientation is applied; no metadata (EXIF,
 * GPS, XMP, ICC) is copied into any output, colours are converted to sRGB. Each rendition comes as WebP
 * and as JPEG (transparency on white).
 *
 * The upload is decoded once, shrunk while it loads (JPEG and WebP decode straight to the reduced size),
 * and every rendition is cut from those reduced pixels: a 70 KB WebP claiming 6000x6600 pixels costs
 * one reduced decode, not eight full ones.
 */
export async function photoRenditions(
  bytes: Buffer,
  focus: FocusPoint = { x: 0.5, y: 0.5 },
): Promise<Rendition[]> {
  const { width, height } = await checkedSize(bytes, { minSide: MIN_SIDE })
  const pixels = await decodedOnce(bytes, { width, height })
  const square = squareAround(pixels.width, pixels.height, focus)
  const fromPixels = () => sharp(pixels.data, { raw: pixels.raw })
  const shapes: { name: RenditionName; width: number; height: number; shape: (image: Sharp) => Sharp }[] = [
    ...SQUARE_SIZES.map(({ name, size }) => {
      const side = Math.min(size, square.width)
      return {
        name,
        width: side,
        height: side,
        shape: (image: Sharp) => image.extract(square).resize(side, side),
      }
    }),
    { name: 'o', width: pixels.width, height: pixels.height, shape: (image: Sharp) => image },
  ]
  return Promise.all(
    shapes.map(async ({ name, width: w, height: h, shape }) => {
      const [webp, jpeg] = await Promise.all([
        encoded(shape(fromPixels()).webp({ quality: 82, effort: 2 })),
        encoded(
          shape(fromPixels()).flatten({ background: '#ffffff' }).jpeg({ quality: 82, progressive: true }),
        ),
      ])
      return { name, width: w, height: h, webp, jpeg }
    }),
  )
}

/**
 * An image uploaded as a document: the same limits (no minimum size), oriented, metadata dropped, same
 * format, at most `DOCUMENT_MAX_SIDE` pixels on its longer side (shrunk while it loads).
 */
export async function cleanImage(bytes: Buffer, type: 'jpeg' | 'png' | 'webp'): Promise<Buffer> {
  const size = await checkedSize(bytes, { minSide: 1 })
  const image = reducedImage(bytes, size, DOCUMENT_MAX_SIDE)
  if (type === 'jpeg') return encoded(image.jpeg({ quality: 90 }))
  if (type === 'png') return encoded(image.png())
  return encoded(image.webp({ quality: 90 }))
}
