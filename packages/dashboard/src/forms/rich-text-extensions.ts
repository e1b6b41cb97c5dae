import type { Extensions } from '@tiptap/react'
import StarterKit from '@tiptap/starter-kit'

/**
 * What the rich-text editor can make: only markup the server's sanitizer keeps unchanged
 * (src/validation/html.ts): paragraphs, headings 2-4, bold, italic, underline, strike-through, inline
 * code, quotes, lists, line breaks, rules and links to http(s), mailto and tel. Code blocks are left
 * out: their language class is one of the attributes the sanitizer drops.
 */
export const RICH_TEXT_EXTENSIONS: Extensions = [
  StarterKit.configure({
    codeBlock: false,
    heading: { levels: [2, 3, 4] },
    link: {
      openOnClick: false,
      autolink: true,
      protocols: ['http', 'https', 'mailto', 'tel'],
      defaultProtocol: 'https',
      isAllowedUri: (url) => /^(https?:|mailto:|tel:)/i.test(url),
    },
  }),
]
