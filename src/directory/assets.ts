import { createHash } from 'node:crypto'

/**
 * The directory pages' stylesheet and script (served from /directory/assets/, so the pages' CSP allows
 * no inline code), and each organization's theme: its colours as CSS custom properties.
 */

const STYLESHEET = `:root{--brand:#1e3a5f;--brand-text:#fff;--accent:#1d4ed8;--accent-text:#fff;--link:#1d4ed8;--text:#1f2937;--muted:#4b5563;--line:#d1d5db;--surface:#f9fafb;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--text);line-height:1.5}
body{margin:0;background:#fff}
a{color:var(--link)}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,textarea:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.skip-link{position:absolute;left:-10000px;top:0;background:#fff;padding:.5rem 1rem}
.skip-link:focus{left:1rem;z-index:10}
.site-header{background:var(--brand);padding:.75rem 1.5rem;display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:.5rem 1.5rem}
.site-home{display:inline-flex;align-items:center;gap:.75rem;color:var(--brand-text);font-weight:600;font-size:1.2rem;text-decoration:none}
.site-nav ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.25rem 1rem}
.site-nav a{color:var(--brand-text);text-decoration:none;padding:.25rem 0;border-bottom:2px solid transparent}
.site-nav a:hover,.site-nav a[aria-current]{border-bottom-color:currentColor}
.site-header a:focus-visible{outline-color:var(--brand-text)}
.site-logo{height:40px;width:auto}
main{max-width:64rem;margin:0 auto;padding:1.5rem}
.site-footer{border-top:1px solid var(--line);padding:1rem 1.5rem;color:var(--muted)}
h1{line-height:1.2}
.search label{display:block;font-weight:600;margin-bottom:.25rem}
.search-row{display:flex;gap:.5rem}
.search-row input{flex:1;font:inherit;padding:.5rem;border:1px solid var(--muted);border-radius:4px}
button,.button{font:inherit;background:var(--accent);color:var(--accent-text);border:0;border-radius:4px;padding:.5rem 1rem;cursor:pointer;text-decoration:none;display:inline-block}
.search-layout{display:grid;grid-template-columns:14rem 1fr;gap:2rem;margin-top:1.5rem}
@media (max-width:48rem){.search-layout{grid-template-columns:1fr;gap:1rem}}
.search-layout.no-facets{grid-template-columns:1fr}
.no-facets>.filter{display:none}
.filter>summary{cursor:pointer;font-weight:600;padding:.25rem 0}
@media (min-width:48.01rem){.filter>summary{display:none}.filter::details-content{content-visibility:visible;display:block}}
.facets h2{font-size:1rem;margin:1rem 0 .25rem}
.facets ul{list-style:none;margin:0;padding:0}
.facets a[aria-current]{font-weight:700}
.facets .more>summary{cursor:pointer;color:var(--link);margin:.25rem 0}
.no-results{text-align:center}
.empty{max-width:30rem;margin:0 auto 1.5rem}
.empty h3{font-size:1rem;text-align:center}
.empty .chips{justify-content:center}
.error-page{max-width:40rem}
.items{list-style:none;padding:0;margin:0}
.item{padding:1rem 0;border-bottom:1px solid var(--line)}
.item h3{margin:0;font-size:1.1rem}
.item p{margin:.25rem 0}
.count{color:var(--muted)}
.experts{list-style:none;padding:0;margin:0}
.expert-card{display:flex;gap:1rem;padding:1rem 0;border-bottom:1px solid var(--line)}
.expert-card img{border-radius:50%;object-fit:cover}
.expert-card h3{margin:0;font-size:1.1rem}
.expert-card p{margin:.25rem 0}
.role,.location,.meta,.detail,.topics{color:var(--muted)}
.pager{display:flex;gap:1rem;align-items:center;margin-top:1rem}
.profile-header{display:flex;gap:1.5rem;align-items:flex-start;flex-wrap:wrap}
.photo{border-radius:8px;object-fit:cover}
.tagline{font-size:1.1rem}
.chips{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.5rem}
.chips a{display:inline-block;border:1px solid var(--line);border-radius:999px;padding:.2rem .75rem;text-decoration:none}
.prose img{max-width:100%;height:auto}
.featured{max-width:100%;height:auto}
.contact{margin-top:2rem;padding:1.5rem;background:var(--surface);border:1px solid var(--line);border-radius:8px}
.field{margin-bottom:1rem}
.field label{display:block;font-weight:600}
.field input,.field select,.field textarea{font:inherit;width:100%;max-width:32rem;box-sizing:border-box;padding:.5rem;border:1px solid var(--muted);border-radius:4px;background:#fff}
.field-error,.form-problem{color:#991b1b}
.form-problem{border:2px solid #991b1b;background:#fff;padding:.5rem 1rem;border-radius:4px;margin-bottom:1rem}
.hp{position:absolute;left:-10000px;width:1px;height:1px;overflow:hidden}
.notice{border-left:4px solid var(--accent);padding:.5rem 1rem;background:var(--surface)}
`

/**
 * Progressive enhancement of the find-an-expert page: results follow the search box as one types
 * (the same page fetched with the new query; its results replace the shown ones). Without
 * JavaScript the form and the links do the same, one page load at a time.
 */
const SCRIPT = `(() => {
  const form = document.querySelector('form.search')
  const results = document.getElementById('results')
  if (!form || !results || !window.fetch || !window.DOMParser) return
  const input = form.querySelector('input[name="q"]')
  let timer = 0
  let latest = 0
  const update = async () => {
    const url = new URL(form.action)
    new FormData(form).forEach((value, key) => { if (value !== '') url.searchParams.append(key, String(value)) })
    const request = ++latest
    const response = await fetch(url, { headers: { accept: 'text/html' } })
    if (!response.ok || request !== latest) return
    const page = new DOMParser().parseFromString(await response.text(), 'text/html')
    const fresh = page.getElementById('results')
    const facets = page.querySelector('nav.facets')
    if (!fresh) return
    results.replaceChildren(...fresh.childNodes)
    const shown = document.querySelector('nav.facets')
    if (facets && shown) shown.replaceChildren(...facets.childNodes)
    const layout = document.querySelector('.search-layout')
    const freshLayout = page.querySelector('.search-layout')
    if (layout && freshLayout) layout.className = freshLayout.className
    history.replaceState(null, '', url)
  }
  input?.addEventListener('input', () => {
    clearTimeout(timer)
    timer = setTimeout(() => update().catch(() => {}), 250)
  })
})()
`

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
export const SCRIPT_ASSET = asset(SCRIPT, 'text/javascript; charset=utf-8')

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
