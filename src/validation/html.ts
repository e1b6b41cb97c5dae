import { createRequire } from 'node:module'
import type SanitizeHtml from 'sanitize-html'

/** sanitize-html (with postcss), loaded with the first write that carries HTML, not by every process. */
let sanitizer: typeof SanitizeHtml | undefined
const sanitize = (): typeof SanitizeHtml => {
  const loaded: typeof SanitizeHtml = sanitizer ?? createRequire(import.meta.url)('sanitize-html')
  sanitizer = loaded
  return loaded
}

import { CONTROLS, characterClass, controlsExcept, LINE_CONTROLS } from './patterns.js'

/** Hosts whose players may be embedded with an iframe (the profile's video and audio sections). */
const EMBED_HOSTS = ['www.youtube.com', 'www.youtube-nocookie.com', 'player.vimeo.com', 'www.slideshare.net']

const options = (): SanitizeHtml.IOptions => ({
  allowedTags: [
    ...sanitize().defaults.allowedTags,
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
  // No data: (images could carry scripts in SVG) and no javascript: anywhere; players over https only.
  allowedSchemes: ['http', 'https', 'mailto', 'tel'],
  allowedSchemesByTag: { img: ['http', 'https'], iframe: ['https'] },
  allowProtocolRelative: false,
  allowedIframeHostnames: EMBED_HOSTS,
  allowIframeRelativeUrls: false,
  disallowedTagsMode: 'discard',
})
let OPTIONS: SanitizeHtml.IOptions | undefined

/**
 * Control characters other than tab and line breaks: the contract allows none in any field. In HTML
 * they can still arrive as numeric character references (`&#1;`, `&#x85;`), which the parser decodes
 * and the serializer writes back as raw characters.
 */
const CONTROL_CHARACTERS = new RegExp(characterClass(controlsExcept(LINE_CONTROLS)), 'g')

/**
 * The HTML fields' allow-list (post html, answers, biography, the descriptions that accept HTML,
 * the SlideShare embed code): scripts, styles, iframes other than the allowed players over https,
 * event-handler attributes, javascript:/data: URLs and control characters are removed; ordinary markup
 * stays. Plain text passes unchanged apart from `<`, `>` and `&` being escaped where they are not markup.
 */
export function sanitizeHtml(html: string): string {
  OPTIONS ??= options()
  return sanitize()(html, OPTIONS).replace(CONTROL_CHARACTERS, '')
}

/** An http(s) URL with none of the characters that would make it markup or break out of an attribute. */
const PLAIN_URL = new RegExp(`^https?://(?!.*${characterClass(CONTROLS)})[^\\s"'<>\\\\^\`{|}]+$`)

/**
 * An embed field ("embed code or URL"): a plain http(s) URL is kept as sent (sanitizing it as HTML
 * would turn its `&` into `&amp;`); anything else is an embed code and goes through the HTML allow-list,
 * which keeps the players' iframes (https only) and their attribution links.
 */
export function sanitizeEmbed(embed: string): string {
  return PLAIN_URL.test(embed) ? embed : sanitizeHtml(embed)
}
