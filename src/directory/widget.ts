import { createHash } from 'node:crypto'
import type { Asset } from './assets.js'

/**
 * `/directory/widget.js`: the `<expert-directory>` element another site embeds (CONTRACT §18). It reads
 * only the directory's public JSON (`/directory/:corporation/api/experts`, the `read:public` view) with
 * `credentials: 'omit'`, renders in a shadow root with DOM text nodes (no markup from data: the
 * biography's paragraphs and lists are rebuilt element by element from an inert parse, only those
 * elements, their text as text), pages its results, and is themed by the embedding page through CSS
 * custom properties and `::part()`.
 *
 * Attributes: `corporation` (required), `topics` (comma-separated), `q` (initial search),
 * `page-size` (1..20, default 6).
 */
const SOURCE = `(() => {
  const script = document.currentScript
  const serviceBase = script && script.src ? new URL('.', script.src).href : new URL('/directory/', location.href).href
  const STYLE = \`
    :host { display: block; font-family: var(--expert-directory-font, inherit); color: var(--expert-directory-text, #1f2937);
      background: var(--expert-directory-background, transparent); }
    form { display: flex; gap: .5rem; margin-bottom: 1rem; flex-wrap: wrap; }
    label { width: 100%; font-weight: 600; }
    input { flex: 1; font: inherit; padding: .5rem; border: 1px solid var(--expert-directory-border, #6b7280);
      border-radius: var(--expert-directory-radius, 4px); }
    button { font: inherit; cursor: pointer; background: var(--expert-directory-accent, #1d4ed8);
      color: var(--expert-directory-accent-text, #fff); border: 0; padding: .5rem 1rem;
      border-radius: var(--expert-directory-radius, 4px); }
    ul { list-style: none; margin: 0; padding: 0; display: grid; gap: .75rem;
      grid-template-columns: repeat(auto-fill, minmax(var(--expert-directory-card-width, 16rem), 1fr)); }
    li { border: 1px solid var(--expert-directory-border, #d1d5db); border-radius: var(--expert-directory-radius, 4px);
      padding: .75rem; display: flex; gap: .75rem; align-items: flex-start; }
    img { width: 56px; height: 56px; border-radius: 50%; object-fit: cover; }
    h2, h3 { margin: 0 0 .25rem; font-size: 1.05rem; }
    p { margin: .25rem 0; }
    .muted { color: var(--expert-directory-muted, #4b5563); }
    a { color: var(--expert-directory-link, #1d4ed8); }
    .link { background: none; color: var(--expert-directory-link, #1d4ed8); padding: 0; text-decoration: underline; text-align: left; }
    nav { display: flex; gap: .75rem; align-items: center; margin-top: 1rem; flex-wrap: wrap; }
    button:disabled { opacity: .5; cursor: default; }
    .biography ul, .biography ol { display: block; padding-left: 1.5rem; }
    .biography ul { list-style: disc; }
    .biography ol { list-style: decimal; }
    .biography li { display: list-item; border: 0; padding: 0; }
  \`

  const el = (tag, props = {}, children = []) => {
    const node = document.createElement(tag)
    for (const [key, value] of Object.entries(props)) {
      if (value === undefined || value === null) continue
      if (key === 'text') node.textContent = value
      else if (key === 'on') for (const [event, handler] of Object.entries(value)) node.addEventListener(event, handler)
      else node.setAttribute(key, value)
    }
    node.append(...children)
    return node
  }

  /** The biography's structure (p, br, ul, ol, li, strong, em, b, i) rebuilt as new elements; text as text. */
  const KEPT = new Set(['P', 'BR', 'UL', 'OL', 'LI', 'STRONG', 'EM', 'B', 'I'])
  const rebuild = (source) => {
    const nodes = []
    for (const child of source.childNodes) {
      if (child.nodeType === 3) nodes.push(document.createTextNode(child.textContent))
      else if (child.nodeType === 1) {
        const inner = rebuild(child)
        if (KEPT.has(child.tagName)) nodes.push(el(child.tagName.toLowerCase(), {}, inner))
        else nodes.push(...inner)
      }
    }
    return nodes
  }
  const biography = (html) => {
    const parsed = new DOMParser().parseFromString(html, 'text/html')
    return el('div', { class: 'biography' }, rebuild(parsed.body))
  }

  class ExpertDirectory extends HTMLElement {
    static observedAttributes = ['corporation', 'topics', 'q']

    constructor() {
      super()
      this.root = this.attachShadow({ mode: 'open' })
      this.requested = 0
    }

    connectedCallback() { this.search(this.getAttribute('q') || '', 1) }
    attributeChangedCallback() { if (this.isConnected) this.search(this.getAttribute('q') || '', 1) }

    pageSize() {
      const size = Number(this.getAttribute('page-size') || '6')
      return Number.isInteger(size) && size >= 1 && size <= 20 ? size : 6
    }

    api(path, params) {
      const corporation = this.getAttribute('corporation') || ''
      if (!/^[1-9][0-9]*$/.test(corporation)) throw new Error('expert-directory: the corporation attribute must be an organization id')
      const url = new URL(corporation + '/api/experts' + path, serviceBase)
      for (const [key, value] of params) url.searchParams.append(key, value)
      return fetch(url, { credentials: 'omit', mode: 'cors' }).then((response) => {
        if (!response.ok) throw new Error('expert-directory: ' + response.status)
        return response.json()
      }).then((body) => body.data)
    }

    show(...nodes) {
      this.root.replaceChildren(el('style', { text: STYLE }), ...nodes)
    }

    async search(q, page = 1) {
      const request = ++this.requested
      this.last = { q, page }
      const size = this.pageSize()
      const params = [['q', q]]
      for (const topic of (this.getAttribute('topics') || '').split(',').map((t) => t.trim()).filter(Boolean)) params.push(['topics', topic])
      params.push(['page_size', String(size)])
      if (page > 1) params.push(['page', String(page)])
      const input = el('input', { type: 'search', name: 'q', id: 'q', value: q })
      const form = el('form', { role: 'search', part: 'form', on: { submit: (event) => { event.preventDefault(); this.search(input.value, 1) } } }, [
        el('label', { for: 'q', text: 'Search experts' }), input, el('button', { type: 'submit', part: 'button', text: 'Search' }),
      ])
      const status = el('p', { 'aria-live': 'polite', class: 'muted', tabindex: '-1', text: 'Loading…' })
      this.show(form, status)
      try {
        const data = await this.api('', params)
        if (request !== this.requested) return
        status.textContent = data.total === 1 ? '1 expert' : data.total + ' experts'
        const list = el('ul', { part: 'list' }, data.experts.map((expert) => this.card(expert)))
        this.root.append(list)
        const pages = Math.max(1, Math.ceil(data.total / size))
        if (pages > 1) {
          const turn = (to) => () => this.search(q, to).then(() => this.root.querySelector('[aria-live]')?.focus())
          this.root.append(el('nav', { 'aria-label': 'Pages', part: 'pager' }, [
            el('button', { type: 'button', part: 'button', text: 'Previous page', ...(page <= 1 ? { disabled: '' } : {}), on: { click: turn(page - 1) } }),
            el('span', { text: 'Page ' + page + ' of ' + pages }),
            el('button', { type: 'button', part: 'button', text: 'Next page', ...(page >= pages ? { disabled: '' } : {}), on: { click: turn(page + 1) } }),
          ]))
        }
      } catch (error) {
        if (request === this.requested) status.textContent = 'The directory could not be loaded.'
      }
    }

    card(expert) {
      return el('li', { part: 'card' }, [
        ...(expert.avatar ? [el('img', { src: expert.avatar, alt: '' })] : []),
        el('div', {}, [
          el('h3', {}, [el('button', { type: 'button', class: 'link', text: expert.name, on: { click: () => this.profile(expert.username) } })]),
          el('p', { class: 'muted', text: [expert.job_title, expert.company].filter(Boolean).join(', ') }),
          ...(expert.tagline ? [el('p', { text: expert.tagline })] : []),
        ]),
      ])
    }

    async profile(username) {
      const request = ++this.requested
      const last = this.last || { q: this.getAttribute('q') || '', page: 1 }
      const back = el('button', { type: 'button', part: 'button', text: 'Back to the search', on: { click: () => this.search(last.q, last.page) } })
      this.show(back, el('p', { 'aria-live': 'polite', class: 'muted', text: 'Loading…' }))
      try {
        const expert = await this.api('/' + encodeURIComponent(username), [])
        if (request !== this.requested) return
        this.show(back, el('article', { part: 'profile' }, [
          ...(expert.avatar ? [el('img', { src: expert.avatar, alt: '' })] : []),
          el('h2', { text: expert.name }),
          el('p', { class: 'muted', text: [expert.job_title, expert.department, expert.company].filter(Boolean).join(', ') }),
          ...(expert.tagline ? [el('p', { text: expert.tagline })] : []),
          ...(expert.topics.length ? [el('p', { text: 'Topics: ' + expert.topics.join(', ') })] : []),
          ...(expert.biography ? [biography(expert.biography)] : []),
          el('p', {}, [el('a', { href: expert.url, target: '_blank', rel: 'noopener', text: 'Full profile and contact form' })]),
        ]))
      } catch (error) {
        if (request === this.requested) this.show(back, el('p', { text: 'This profile could not be loaded.' }))
      }
    }
  }

  if (!customElements.get('expert-directory')) customElements.define('expert-directory', ExpertDirectory)
})()
`

export const WIDGET_ASSET: Asset = {
  body: SOURCE,
  type: 'text/javascript; charset=utf-8',
  etag: `"${createHash('sha256').update(SOURCE).digest('base64url').slice(0, 27)}"`,
}
