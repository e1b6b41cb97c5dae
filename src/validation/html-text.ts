import { CONTROLS, characterClass } from './patterns.js'

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' }

/** Control characters (C0, DEL, C1): never part of readable text, whether raw or as `&#1;`. */
const CONTROL_CHARACTERS = new RegExp(characterClass(CONTROLS), 'g')

/** A numeric character reference's code point, or a space for one that is not a Unicode scalar value. */
function scalar(code: number): string {
  return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : ' '
}

/**
 * The readable text of an HTML fragment: no tags, scripts or styles; entities decoded; control
 * characters dropped; spaces collapsed.
 */
export function plainText(html: string): string {
  return html
    .replace(/<(script|style|template)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<\/?(p|div|br|li|h[1-6]|blockquote|tr|section|article)\b[^>]*>/gi, ' ')
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (entity, name: string) => {
      if (name[0] === '#') {
        const code =
          name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1))
        return scalar(code)
      }
      return ENTITIES[name.toLowerCase()] ?? entity
    })
    .replace(CONTROL_CHARACTERS, ' ')
    .replace(/\s+/g, ' ')
    .trim()
}

/** Minutes to read `html` at 200 words a minute, rounded up, at least 1. */
export function readingTime(html: string): number {
  const words = plainText(html).split(' ').filter(Boolean).length
  return Math.max(1, Math.ceil(words / 200))
}

/** At most `max` characters of `text`, cut at a word boundary with an ellipsis when shortened. */
export function summary(text: string, max = 160): string {
  const chars = [...text]
  if (chars.length <= max) return text
  const cut = chars.slice(0, max - 1).join('')
  const space = cut.lastIndexOf(' ')
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,.;:!?-]+$/, '')}…`
}
