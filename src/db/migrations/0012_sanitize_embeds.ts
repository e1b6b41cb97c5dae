import { type Kysely, sql } from 'kysely'
import type Sanitize from 'sanitize-html'

/**
 * The HTML allow-list as it stood when this migration was written (src/validation/html.ts), frozen
 * here so that later changes to the application's sanitizer never change what this step did.
 */
const optionsOf = (sanitize: typeof Sanitize): Sanitize.IOptions => ({
  allowedTags: [
    ...sanitize.defaults.allowedTags,
    'img',
    'figure',
    'figcaption',
    'picture',
    'source',
    'iframe',
    'del',
    'ins',
    'sub',
    'sup',
  ],
  allowedAttributes: {
    a: ['href', 'name', 'target', 'rel', 'title'],
    img: ['src', 'srcset', 'alt', 'title', 'width', 'height', 'loading'],
    source: ['srcset', 'type', 'media'],
    iframe: ['src', 'width', 'height', 'title', 'allow', 'allowfullscreen', 'frameborder'],
    th: ['colspan', 'rowspan', 'scope'],
    td: ['colspan', 'rowspan'],
    ol: ['start', 'type'],
    '*': ['lang', 'dir'],
  },
  allowedSchemes: ['http', 'https', 'mailto', 'tel'],
  allowedSchemesByTag: { img: ['http', 'https'], iframe: ['https'] },
  allowProtocolRelative: false,
  allowedIframeHostnames: [
    'www.youtube.com',
    'www.youtube-nocookie.com',
    'player.vimeo.com',
    'www.slideshare.net',
  ],
  allowIframeRelativeUrls: false,
  disallowedTagsMode: 'discard',
})

/** A character class of code point ranges, spelled with escapes (`[\\u0000-\\u0008...]`). */
const characterClass = (ranges: [number, number][]) =>
  `[${ranges.map(([a, b]) => `\\u${a.toString(16).padStart(4, '0')}-\\u${b.toString(16).padStart(4, '0')}`).join('')}]`
/** Control characters other than tab, line feed and carriage return. */
const CONTROLS = new RegExp(
  characterClass([
    [0x00, 0x08],
    [0x0b, 0x0c],
    [0x0e, 0x1f],
    [0x7f, 0x9f],
  ]),
  'g',
)
const CONTROL = new RegExp(
  characterClass([
    [0x00, 0x1f],
    [0x7f, 0x9f],
  ]),
)
/** A plain http(s) URL is kept as it is; anything else is an embed code. */
const PLAIN_URL = /^https?:\/\/[^\s"'<>\\^`{|}]+$/

function embedSanitizer(sanitize: typeof Sanitize): (embed: string) => string {
  const options = optionsOf(sanitize)
  return (embed) => {
    if (PLAIN_URL.test(embed) && !CONTROL.test(embed)) return embed
    return sanitize(embed, options).replace(CONTROLS, '')
  }
}

const BATCH = 500

/** The migration sees the tables as they are at this step, not as the current schema types say. */
type Tables = Record<string, Record<string, string | number | null>>

/**
 * SlideShare `embed` values were stored and served verbatim (scripts, event handlers, javascript:
 * iframes). Each goes through the embed rule every write now applies; the experts whose element
 * changed get a new `doc_version`, so that no stored read document keeps serving the old value.
 * Not reversible: `down` keeps the sanitized values.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // Loaded here, when the step runs, not by every process that merely lists the migrations.
  const sanitizeEmbed = embedSanitizer((await import('sanitize-html')).default)
  const tables = db.withTables<Tables>()
  const changedExperts = new Set<number>()
  let after = 0
  for (;;) {
    const rows = (await tables
      .selectFrom('profile_items')
      .select(['id', 'expert_id', 'data'])
      .where('section', '=', 'slideshare')
      .where('id', '>', after)
      .orderBy('id')
      .limit(BATCH)
      .execute()) as { id: number; expert_id: number; data: string }[]
    if (rows.length === 0) break
    for (const { id, expert_id, data } of rows) {
      const element = JSON.parse(data) as Record<string, unknown>
      if (typeof element.embed !== 'string') continue
      const clean = sanitizeEmbed(element.embed)
      if (clean === element.embed) continue
      await tables
        .updateTable('profile_items')
        .set({ data: JSON.stringify({ ...element, embed: clean === '' ? null : clean }) })
        .where('id', '=', id)
        .execute()
      changedExperts.add(Number(expert_id))
    }
    after = Number(rows[rows.length - 1]?.id)
  }
  for (const expertId of changedExperts) {
    await tables
      .updateTable('experts')
      .set({ doc_version: sql`doc_version + 1` })
      .where('id', '=', expertId)
      .execute()
  }
}

export async function down(): Promise<void> {}
