import sanitize from 'sanitize-html'

/** Hosts whose players may be embedded with an iframe (the profile's video and audio sections). */
const EMBED_HOSTS = ['www.youtube.com', 'www.youtube-nocookie.com', 'player.vimeo.com', 'www.slideshare.net']

const OPTIONS: sanitize.IOptions = {
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
  // No data: (images could carry scripts in SVG) and no javascript: anywhere.
  allowedSchemes: ['http', 'https', 'mailto', 'tel'],
  allowedSchemesByTag: { img: ['http', 'https'] },
  allowProtocolRelative: false,
  allowedIframeHostnames: EMBED_HOSTS,
  allowIframeRelativeUrls: false,
  disallowedTagsMode: 'discard',
}

/**
 * The HTML fields' allow-list (post html, answers, biography, the descriptions that accept HTML):
 * scripts, styles, foreign iframes, event-handler attributes and javascript:/data: URLs are removed;
 * ordinary markup stays. Plain text passes unchanged apart from `<`, `>` and `&` being escaped
 * where they are not markup.
 */
export function sanitizeHtml(html: string): string {
  return sanitize(html, OPTIONS)
}
