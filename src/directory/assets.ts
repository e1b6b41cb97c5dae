import { createHash } from 'node:crypto'
import { SEARCH_SCRIPT, STYLESHEET, WIDGET_SCRIPT } from './files.js'

/**
 * The directory pages' stylesheet and script (served from /directory/assets/, so the pages' CSP allows
 * no inline code), the widget's script (/directory/widget.js), and each organization's theme: its
 * colours as CSS custom properties. Their sources are in `browser/` (src/directory/files.ts).
 */

export interface Asset {
  body: string
  type: string
  etag: string
}

const asset = (body: string, type: string): Asset => ({
  body,
  type,
  etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
})

export const STYLESHEET_ASSET = asset(STYLESHEET, 'text/css; charset=utf-8')
export const SCRIPT_ASSET = asset(SEARCH_SCRIPT, 'text/javascript; charset=utf-8')
export const WIDGET_ASSET = asset(WIDGET_SCRIPT, 'text/javascript; charset=utf-8')

/** Relative luminance of a `#rrggbb` colour (WCAG 2). */
function luminance(hex: string): number {
  const channels = [1, 3, 5].map((at) => Number.parseInt(hex.slice(at, at + 2), 16) / 255)
  const [r = 0, g = 0, b = 0] = channels.map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4))
  return 0.2126 * r + 0.7152 * g + 0.0722 * b
}

const contrast = (a: number, b: number) => (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)

/** Black or white, whichever reads better on `hex`. */
function textOn(hex: string): string {
  const l = luminance(hex)
  return contrast(l, 1) >= contrast(l, 0) ? '#fff' : '#000'
}

/**
 * The organization's colours as custom properties. Text on them is black or white, whichever has the
 * better contrast, and links take the accent colour only when it reads on white (WCAG AA, 4.5:1), so
 * that no choice of colours makes the pages unreadable.
 */
export function themeStylesheet(colors: { brand: string | null; accent: string | null }): string {
  const rules: string[] = []
  if (colors.brand) rules.push(`--brand:${colors.brand}`, `--brand-text:${textOn(colors.brand)}`)
  if (colors.accent) {
    rules.push(`--accent:${colors.accent}`, `--accent-text:${textOn(colors.accent)}`)
    if (contrast(luminance(colors.accent), 1) >= 4.5) rules.push(`--link:${colors.accent}`)
  }
  return `:root{${rules.join(';')}}\n`
}
