import { createHash } from 'node:crypto'
import { sharp } from '../media/images.js'

/**
 * The demo's pictures, drawn at seed time from SVG (no text: a server may have no fonts): a portrait
 * silhouette per expert and an abstract banner per post, in colours chosen from the name, so each
 * looks different and the same name always draws the same picture. They go through the media pipeline
 * like an upload, so the demo's public pages show images served by the app itself.
 */

const SKIN = ['#f1d3b3', '#e0ac82', '#c68642', '#8d5524', '#f6dcc9', '#a8714a']
const BACKGROUNDS = ['#0b3d6b', '#2f6f5e', '#7a2e4d', '#4b4f9c', '#8a5a14', '#245a7a', '#5b3c88', '#1f6b6b']
const CLOTHES = ['#b45309', '#334155', '#0f766e', '#9f1239', '#1d4ed8', '#4d7c0f', '#6b21a8', '#92400e']
const HAIR = ['#1f1a17', '#3b2a20', '#6b4423', '#a0522d', '#d4b483', '#7c7c7c']

/** A number from the name's hash, for picking from a palette. */
function pick<T>(values: readonly T[], seed: string, salt: string): T {
  const digest = createHash('sha256').update(`${salt}\0${seed}`).digest()
  const picked = values[digest.readUInt32BE(0) % values.length]
  if (picked === undefined) throw new Error('pick from an empty palette')
  return picked
}

/** A 400 × 400 PNG head-and-shoulders portrait for `name`. */
export async function demoPortrait(name: string): Promise<Buffer> {
  const background = pick(BACKGROUNDS, name, 'background')
  const skin = pick(SKIN, name, 'skin')
  const clothes = pick(CLOTHES, name, 'clothes')
  const hair = pick(HAIR, name, 'hair')
  const longHair = pick([true, false], name, 'long')
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="400" height="400" viewBox="0 0 400 400">
  <rect width="400" height="400" fill="${background}"/>
  <circle cx="330" cy="70" r="120" fill="#ffffff" fill-opacity="0.08"/>
  ${longHair ? `<path d="M112 170 C112 90 288 90 288 170 L300 300 L100 300 Z" fill="${hair}"/>` : ''}
  <path d="M70 400 C70 300 130 262 200 262 C270 262 330 300 330 400 Z" fill="${clothes}"/>
  <path d="M176 232 L224 232 L228 276 C214 290 186 290 172 276 Z" fill="${skin}"/>
  <ellipse cx="200" cy="170" rx="72" ry="84" fill="${skin}"/>
  <path d="M128 160 C124 96 166 78 200 78 C246 78 280 104 272 160 C256 124 226 112 200 114 C170 112 142 128 128 160 Z" fill="${hair}"/>
</svg>`
  return sharp(Buffer.from(svg)).png({ compressionLevel: 9 }).toBuffer()
}

/** A 1200 × 630 JPEG banner (the size link previews use) for the post titled `title`. */
export async function demoBanner(title: string): Promise<Buffer> {
  const from = pick(BACKGROUNDS, title, 'from')
  const to = pick(CLOTHES, title, 'to')
  const circles = Array.from({ length: 6 }, (_, index) => {
    const digest = createHash('sha256').update(`${index}\0${title}`).digest()
    const x = digest.readUInt16BE(0) % 1200
    const y = digest.readUInt16BE(2) % 630
    const r = 60 + (digest.readUInt16BE(4) % 180)
    return `<circle cx="${x}" cy="${y}" r="${r}" fill="#ffffff" fill-opacity="${(0.06 + (index % 3) * 0.04).toFixed(2)}"/>`
  }).join('')
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="630" viewBox="0 0 1200 630">
  <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${from}"/><stop offset="1" stop-color="${to}"/></linearGradient></defs>
  <rect width="1200" height="630" fill="url(#g)"/>${circles}
  <rect x="80" y="470" width="360" height="16" rx="8" fill="#ffffff" fill-opacity="0.7"/>
  <rect x="80" y="500" width="220" height="16" rx="8" fill="#ffffff" fill-opacity="0.45"/>
</svg>`
  return sharp(Buffer.from(svg)).jpeg({ quality: 80 }).toBuffer()
}
