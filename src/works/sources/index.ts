import type { Config } from '../../config.js'
import { type Resolver, webhookNetwork } from '../../delivery/webhook-network.js'
import { SourceClient } from './client.js'
import { CrossrefSource, followRateHeaders } from './crossref.js'
import type { HttpSettings } from './http.js'
import { nextMidnightUtc, OpenalexSource } from './openalex.js'
import { OrcidSource } from './orcid.js'
import { type Clock, Pacer, type PacerLimits, systemClock } from './pacer.js'
import { PubmedSource } from './pubmed.js'
import type { Source, SourceName } from './source.js'

/** The settings the connectors read. */
export type SourcesConfig = Pick<
  Config,
  | 'sources'
  | 'sourcesAllowPrivate'
  | 'sourcesTimeoutMs'
  | 'orcidUrl'
  | 'orcidTokenUrl'
  | 'orcidClientId'
  | 'orcidClientSecret'
  | 'orcidBatchSize'
  | 'openalexUrl'
  | 'openalexApiKey'
  | 'crossrefUrl'
  | 'crossrefMailto'
  | 'pubmedUrl'
  | 'ncbiApiKey'
>

export interface SourcesDeps {
  /** The clock the pacers wait on (tests: a virtual one). */
  clock?: Clock
  /** The DNS lookup behind the address rule (tests). */
  resolve?: Resolver
  /** The longest `Retry-After` a request waits out before it fails with `retryAt`; default 60 s. */
  maxWaitMs?: number
  /** The largest reply read, in bytes; default 64 MiB. */
  maxBytes?: number
  /** PubMed ids per `efetch` call; default 500 (POST above 200). */
  pubmedFetchBatch?: number
  /** PubMed ids per `esearch` page; default 200. */
  pubmedPageSize?: number
}

/**
 * Each source's budget. ORCID: 12/s (its public limit); OpenAlex: well under its 100/s ceiling;
 * Crossref: the polite pool's list limit with a contact address (3/s, 3 at once), the public pool's
 * without (1/s, 1), lowered further by its `x-rate-limit-*` headers; PubMed: 3/s, 10/s with a key.
 */
export function sourceLimits(config: SourcesConfig): Record<SourceName, PacerLimits> {
  return {
    orcid: { perSecond: 12, concurrency: 4 },
    openalex: { perSecond: 10, concurrency: 2 },
    crossref: config.crossrefMailto ? { perSecond: 3, concurrency: 3 } : { perSecond: 1, concurrency: 1 },
    pubmed: { perSecond: config.ncbiApiKey ? 10 : 3, concurrency: 3 },
  }
}

/** The configured connectors (none when `EXPERTDIR_SOURCES=none`), each with its own pacer. */
export function sourcesFrom(config: SourcesConfig, deps: SourcesDeps = {}): Source[] {
  const clock = deps.clock ?? systemClock
  const http: HttpSettings = {
    network: webhookNetwork({ webhookAllowPrivate: config.sourcesAllowPrivate }, deps.resolve),
    timeoutMs: config.sourcesTimeoutMs,
    maxBytes: deps.maxBytes ?? 64 * 1024 * 1024,
    userAgent: config.crossrefMailto ? `expertdir (mailto:${config.crossrefMailto})` : 'expertdir',
  }
  const limits = sourceLimits(config)
  const client = (
    source: SourceName,
    options: { pauseUntil?: (now: number) => number; followRate?: boolean } = {},
  ) => {
    const pacer = new Pacer(clock, limits[source])
    return new SourceClient({
      source,
      pacer,
      clock,
      http,
      maxWaitMs: deps.maxWaitMs ?? 60_000,
      ...(options.pauseUntil ? { defaultPauseUntil: options.pauseUntil } : {}),
      ...(options.followRate ? { onReply: followRateHeaders(pacer) } : {}),
    })
  }
  const build: Record<SourceName, () => Source> = {
    orcid: () =>
      new OrcidSource(client('orcid'), {
        baseUrl: config.orcidUrl,
        tokenUrl: config.orcidTokenUrl,
        clientId: config.orcidClientId,
        clientSecret: config.orcidClientSecret,
        batchSize: config.orcidBatchSize,
      }),
    openalex: () =>
      new OpenalexSource(client('openalex', { pauseUntil: nextMidnightUtc }), {
        baseUrl: config.openalexUrl,
        apiKey: config.openalexApiKey,
      }),
    crossref: () =>
      new CrossrefSource(client('crossref', { followRate: true }), {
        baseUrl: config.crossrefUrl,
        mailto: config.crossrefMailto,
      }),
    pubmed: () =>
      new PubmedSource(client('pubmed'), {
        baseUrl: config.pubmedUrl,
        apiKey: config.ncbiApiKey,
        email: config.crossrefMailto,
        pageSize: deps.pubmedPageSize ?? 200,
        fetchBatch: deps.pubmedFetchBatch ?? 500,
      }),
  }
  return config.sources.map((name) => build[name]())
}
