import STYLE from './widget.css'

/**
 * `/directory/widget.js`: the `<expert-directory>` element another site embeds (CONTRACT §18). It reads
 * only the directory's public JSON (`/directory/:corporation/api/experts`, the `read:public` view) with
 * `credentials: 'omit'`, renders in a shadow root with DOM text nodes (no markup from data: the
 * biography's paragraphs and lists are rebuilt element by element from an inert parse, only those
 * elements, their text as text), pages its results, and is themed by the embedding page through CSS
 * custom properties and `::part()`.
 *
 * Attributes: `corporation` (required), `topics` (comma-separated), `q` (initial search),
 * `media-available` (`1`: only experts available for media), `page-size` (1..20, default 6).
 */

/** The public JSON's shapes, as far as the widget reads them (src/directory/public-api.ts). */
interface ExpertCard {
  username: string
  name: string
  avatar: string | null
  job_title: string | null
  company: string | null
  tagline: string | null
  media_available?: number
}
interface ExpertProfile extends ExpertCard {
  department: string | null
  topics: string[]
  biography: string | null
  url: string
}
interface SearchAnswer {
  total: number
  experts: ExpertCard[]
}

type Handlers = Record<string, (event: Event) => unknown>
/** An element's attributes, with its text and its event handlers. */
interface Props {
  text?: string
  on?: Handlers
  [attribute: string]: string | Handlers | undefined
}

const script = document.currentScript instanceof HTMLScriptElement ? document.currentScript : null
const serviceBase = script?.src ? new URL('.', script.src).href : new URL('/directory/', location.href).href

const el = <Tag extends keyof HTMLElementTagNameMap>(
  tag: Tag,
  { text, on, ...attributes }: Props = {},
  children: Node[] = [],
): HTMLElementTagNameMap[Tag] => {
  const node = document.createElement(tag)
  for (const [name, value] of Object.entries(attributes))
    if (typeof value === 'string') node.setAttribute(name, value)
  if (text !== undefined) node.textContent = text
  for (const [event, handler] of Object.entries(on ?? {})) node.addEventListener(event, handler)
  node.append(...children)
  return node
}

/** The biography's structure (p, br, ul, ol, li, strong, em, b, i) rebuilt as new elements; text as text. */
const KEPT = ['p', 'br', 'ul', 'ol', 'li', 'strong', 'em', 'b', 'i'] as const
const isKept = (tag: string): tag is (typeof KEPT)[number] => KEPT.some((kept) => kept === tag)
const rebuild = (source: Node): Node[] => {
  const nodes: Node[] = []
  for (const child of source.childNodes) {
    if (child.nodeType === Node.TEXT_NODE) nodes.push(document.createTextNode(child.textContent ?? ''))
    else if (child.nodeType === Node.ELEMENT_NODE && child instanceof Element) {
      const inner = rebuild(child)
      const tag = child.tagName.toLowerCase()
      if (isKept(tag)) nodes.push(el(tag, {}, inner))
      else nodes.push(...inner)
    }
  }
  return nodes
}
const biography = (html: string) => {
  const parsed = new DOMParser().parseFromString(html, 'text/html')
  return el('div', { class: 'biography' }, rebuild(parsed.body))
}

class ExpertDirectory extends HTMLElement {
  static observedAttributes = ['corporation', 'topics', 'q', 'media-available']

  private readonly root: ShadowRoot
  private requested = 0
  private last: { q: string; page: number } | undefined

  constructor() {
    super()
    this.root = this.attachShadow({ mode: 'open' })
  }

  connectedCallback() {
    this.search(this.getAttribute('q') || '', 1)
  }

  attributeChangedCallback() {
    if (this.isConnected) this.search(this.getAttribute('q') || '', 1)
  }

  pageSize() {
    const size = Number(this.getAttribute('page-size') || '6')
    return Number.isInteger(size) && size >= 1 && size <= 20 ? size : 6
  }

  async api<T>(path: string, params: [string, string][]): Promise<T> {
    const corporation = this.getAttribute('corporation') || ''
    if (!/^[1-9][0-9]*$/.test(corporation))
      throw new Error('expert-directory: the corporation attribute must be an organization id')
    const url = new URL(`${corporation}/api/experts${path}`, serviceBase)
    for (const [key, value] of params) url.searchParams.append(key, value)
    const response = await fetch(url, { credentials: 'omit', mode: 'cors' })
    if (!response.ok) throw new Error(`expert-directory: ${response.status}`)
    return ((await response.json()) as { data: T }).data
  }

  show(...nodes: Node[]) {
    this.root.replaceChildren(el('style', { text: STYLE }), ...nodes)
  }

  async search(q: string, page = 1) {
    const request = ++this.requested
    this.last = { q, page }
    const size = this.pageSize()
    const params: [string, string][] = [['q', q]]
    const topics = (this.getAttribute('topics') || '').split(',').map((topic) => topic.trim())
    for (const topic of topics.filter(Boolean)) params.push(['topics', topic])
    if (this.getAttribute('media-available') === '1') params.push(['media_available', '1'])
    params.push(['page_size', String(size)])
    if (page > 1) params.push(['page', String(page)])
    const input = el('input', { type: 'search', name: 'q', id: 'q', value: q })
    const submit = (event: Event) => {
      event.preventDefault()
      this.search(input.value, 1)
    }
    const form = el('form', { role: 'search', part: 'form', on: { submit } }, [
      el('label', { for: 'q', text: 'Search experts' }),
      input,
      el('button', { type: 'submit', part: 'button', text: 'Search' }),
    ])
    const status = el('p', { 'aria-live': 'polite', class: 'muted', tabindex: '-1', text: 'Loading…' })
    this.show(form, status)
    try {
      const data = await this.api<SearchAnswer>('', params)
      if (request !== this.requested) return
      status.textContent = data.total === 1 ? '1 expert' : `${data.total} experts`
      const list = el(
        'ul',
        { part: 'list' },
        data.experts.map((expert) => this.card(expert)),
      )
      this.root.append(list)
      const pages = Math.max(1, Math.ceil(data.total / size))
      if (pages > 1) {
        const turn = (to: number) => () =>
          this.search(q, to).then(() => this.root.querySelector<HTMLElement>('[aria-live]')?.focus())
        this.root.append(
          el('nav', { 'aria-label': 'Pages', part: 'pager' }, [
            el('button', {
              type: 'button',
              part: 'button',
              text: 'Previous page',
              ...(page <= 1 ? { disabled: '' } : {}),
              on: { click: turn(page - 1) },
            }),
            el('span', { text: `Page ${page} of ${pages}` }),
            el('button', {
              type: 'button',
              part: 'button',
              text: 'Next page',
              ...(page >= pages ? { disabled: '' } : {}),
              on: { click: turn(page + 1) },
            }),
          ]),
        )
      }
    } catch {
      if (request === this.requested) status.textContent = 'The directory could not be loaded.'
    }
  }

  card(expert: ExpertCard) {
    const open = () => this.profile(expert.username)
    return el('li', { part: 'card' }, [
      ...(expert.avatar ? [el('img', { src: expert.avatar, alt: '' })] : []),
      el('div', {}, [
        el('h3', {}, [
          el('button', { type: 'button', class: 'link', text: expert.name, on: { click: open } }),
        ]),
        el('p', { class: 'muted', text: [expert.job_title, expert.company].filter(Boolean).join(', ') }),
        ...(expert.tagline ? [el('p', { text: expert.tagline })] : []),
        ...(expert.media_available === 1 ? [el('p', { class: 'media', text: 'Available for media' })] : []),
      ]),
    ])
  }

  async profile(username: string) {
    const request = ++this.requested
    const last = this.last || { q: this.getAttribute('q') || '', page: 1 }
    const back = el('button', {
      type: 'button',
      part: 'button',
      text: 'Back to the search',
      on: { click: () => this.search(last.q, last.page) },
    })
    this.show(back, el('p', { 'aria-live': 'polite', class: 'muted', text: 'Loading…' }))
    try {
      const expert = await this.api<ExpertProfile>(`/${encodeURIComponent(username)}`, [])
      if (request !== this.requested) return
      this.show(
        back,
        el('article', { part: 'profile' }, [
          ...(expert.avatar ? [el('img', { src: expert.avatar, alt: '' })] : []),
          el('h2', { text: expert.name }),
          el('p', {
            class: 'muted',
            text: [expert.job_title, expert.department, expert.company].filter(Boolean).join(', '),
          }),
          ...(expert.tagline ? [el('p', { text: expert.tagline })] : []),
          ...(expert.topics.length ? [el('p', { text: `Topics: ${expert.topics.join(', ')}` })] : []),
          ...(expert.biography ? [biography(expert.biography)] : []),
          el('p', {}, [
            el('a', {
              href: expert.url,
              target: '_blank',
              rel: 'noopener',
              text: 'Full profile and contact form',
            }),
          ]),
        ]),
      )
    } catch {
      if (request === this.requested) this.show(back, el('p', { text: 'This profile could not be loaded.' }))
    }
  }
}

if (!customElements.get('expert-directory')) customElements.define('expert-directory', ExpertDirectory)
