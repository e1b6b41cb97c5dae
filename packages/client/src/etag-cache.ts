interface Entry {
  etag: string
  body: ArrayBuffer
  headers: [string, string][]
}

/** Headers of a 304 that describe its (empty) body, not the cached representation. */
const BODY_HEADERS = new Set(['content-length', 'content-type', 'content-encoding', 'transfer-encoding'])

/** A small least-recently-used cache of GET responses by URL, revalidated with `If-None-Match`. */
export class EtagCache {
  private readonly entries = new Map<string, Entry>()
  hits = 0
  misses = 0

  constructor(private readonly capacity: number) {}

  etagOf(url: string): string | undefined {
    return this.entries.get(url)?.etag
  }

  /** Keeps a 200 response that carries an ETag. */
  async store(url: string, response: Response): Promise<void> {
    const etag = response.headers.get('etag')
    if (this.capacity === 0 || response.status !== 200 || !etag) return
    const body = await response.clone().arrayBuffer()
    this.entries.delete(url)
    this.entries.set(url, { etag, body, headers: [...response.headers] })
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value
      if (oldest === undefined) break
      this.entries.delete(oldest)
    }
  }

  /** The cached representation for a 304, as a 200 carrying the 304's fresh headers. */
  replay(url: string, notModified: Response): Response | undefined {
    const entry = this.entries.get(url)
    if (!entry) return undefined
    this.entries.delete(url)
    this.entries.set(url, entry)
    this.hits++
    const headers = new Headers(entry.headers)
    for (const [name, value] of notModified.headers) {
      if (!BODY_HEADERS.has(name)) headers.set(name, value)
    }
    headers.set('x-expertdir-cache', 'revalidated')
    return new Response(entry.body.slice(0), { status: 200, headers })
  }

  get size(): number {
    return this.entries.size
  }
}
