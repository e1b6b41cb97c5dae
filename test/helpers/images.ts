import { crc32 } from 'node:zlib'
import sharp from 'sharp'

/** A marker written into the EXIF of test photos: no served file may contain it. */
export const EXIF_MARKER = 'ExpertdirSecretCamera'

/** A photo of `width`x`height` with a colour gradient, as JPEG, PNG or WebP; JPEGs carry EXIF with GPS. */
export async function testImage(
  format: 'jpeg' | 'png' | 'webp',
  width = 640,
  height = 480,
  { orientation }: { orientation?: number } = {},
): Promise<Buffer> {
  const left = await sharp({
    create: { width: Math.ceil(width / 2), height, channels: 3, background: '#c0392b' },
  })
    .png()
    .toBuffer()
  const image = sharp({ create: { width, height, channels: 3, background: '#2471a3' } }).composite([
    { input: left, left: 0, top: 0 },
  ])
  const exif = {
    IFD0: { Copyright: EXIF_MARKER, Artist: EXIF_MARKER },
    IFD3: {
      GPSLatitudeRef: 'N',
      GPSLatitude: '48/1 51/1 30/1',
      GPSLongitudeRef: 'E',
      GPSLongitude: '2/1 21/1 7/1',
    },
  }
  if (format === 'png') return image.png().withExif(exif).toBuffer()
  if (format === 'webp') return image.webp().withExif(exif).toBuffer()
  const jpeg = await image.jpeg().withExif(exif).toBuffer()
  return orientation ? sharp(jpeg).keepExif().withMetadata({ orientation }).jpeg().toBuffer() : jpeg
}

function pngChunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data])
  const length = Buffer.alloc(4)
  length.writeUInt32BE(data.length)
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(body))
  return Buffer.concat([length, body, crc])
}

/**
 * A decompression bomb: a few hundred bytes of PNG whose header claims `width`x`height` pixels. It
 * must be refused from its header, before anything is decoded.
 */
export function pixelBomb(width: number, height: number): Buffer {
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header.set([8, 2, 0, 0, 0], 8)
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', Buffer.from([0x78, 0x9c, 0x63, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01])),
    pngChunk('IEND', Buffer.alloc(0)),
  ])
}

/** A small, valid PDF. */
export function testPdf(): Buffer {
  return Buffer.from(
    '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n',
    'latin1',
  )
}

/** A multipart/form-data body with one file part. */
export function multipart(
  bytes: Buffer,
  { field = 'file', type = 'application/octet-stream', filename = 'upload.bin' } = {},
): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----expertdir${Math.random().toString(16).slice(2)}`
  const payload = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`,
    ),
    bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ])
  return { payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } }
}
