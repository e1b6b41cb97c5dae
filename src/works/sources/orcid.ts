import type { SourceClient } from './client.js'
import {
  datedFields,
  monthNumber,
  normalizeDoi,
  normalizeOrcid,
  normalizePmid,
  plainText,
  yearNumber,
} from './normalize.js'
import {
  expectShape,
  OrcidBulkShape,
  type OrcidFullWorkReply,
  OrcidTokenShape,
  type OrcidWorks,
  OrcidWorksShape,
  shapeCheck,
  shapeDrift,
} from './shapes.js'
import {
  type ExpertToSearch,
  type Source,
  type SourceAuthor,
  SourceError,
  type SourceNote,
  type SourceWork,
} from './source.js'

/**
 * ORCID's public API (SOURCES.md §1): the record's grouped work summaries, then the full works in
 * bulk, at most `batchSize` (≤ 100) put-codes per call. A group is ORCID's own deduplication, so one
 * group gives one work. Only a `self` identifier identifies a work: a `part-of` DOI is the container's.
 * A token (client credentials) is optional: without one the public read is anonymous.
 */
export interface OrcidSettings {
  baseUrl: string
  tokenUrl: string
  clientId?: string | undefined
  clientSecret?: string | undefined
  batchSize: number
}

const ACCEPT = { accept: 'application/vnd.orcid+json' }

export const MAX_ORCID_BATCH = 100

export class OrcidSource implements Source {
  readonly name = 'orcid'
  private token: Promise<string> | undefined

  constructor(
    private readonly client: SourceClient,
    private readonly settings: OrcidSettings,
  ) {}

  skipReason(): string | null {
    return null
  }

  notes(): SourceNote[] {
    return this.hasCredentials()
      ? []
      : [{ source: 'orcid', message: 'no ORCID client credentials: reading the public API anonymously' }]
  }

  async *worksFor(expert: ExpertToSearch, signal?: AbortSignal): AsyncIterable<SourceWork> {
    const orcid = normalizeOrcid(expert.orcid)
    if (!orcid) return
    const summaries = await this.read(`${orcid}/works`, signal)
    const works = expectShape('orcid', OrcidWorksShape, summaries, 'the works list')
    const groups = works.group.flatMap((group) => {
      const [first] = group['work-summary']
      return first ? [{ group, putCode: first['put-code'] }] : []
    })
    const batchSize = Math.max(1, Math.min(MAX_ORCID_BATCH, this.settings.batchSize))
    for (let start = 0; start < groups.length; start += batchSize) {
      const batch = groups.slice(start, start + batchSize)
      const full = await this.fullWorks(
        orcid,
        batch.map(({ putCode }) => putCode),
        signal,
      )
      for (const { group, putCode } of batch) {
        yield orcidWork(group, full.get(putCode))
      }
    }
  }

  async probe(orcid: string, signal?: AbortSignal): Promise<string[]> {
    const summaries = await this.read(`${orcid}/works`, signal)
    const drift = shapeDrift(OrcidWorksShape, summaries).map((problem) => `works: ${problem}`)
    if (drift.length > 0 || !shapeCheck(OrcidWorksShape)(summaries)) return drift
    const putCodes = summaries.group.flatMap((group) =>
      group['work-summary'].slice(0, 1).map((s) => s['put-code']),
    )
    if (putCodes.length === 0) return []
    const bulk = await this.read(`${orcid}/works/${putCodes.slice(0, 3).join(',')}`, signal)
    return shapeDrift(OrcidBulkShape, bulk).map((problem) => `bulk works: ${problem}`)
  }

  private hasCredentials(): boolean {
    return Boolean(this.settings.clientId && this.settings.clientSecret)
  }

  private async fullWorks(
    orcid: string,
    putCodes: number[],
    signal?: AbortSignal,
  ): Promise<Map<number, OrcidFullWorkReply>> {
    const reply = await this.read(`${orcid}/works/${putCodes.join(',')}`, signal)
    const bulk = expectShape('orcid', OrcidBulkShape, reply, 'the bulk works reply')
    const byPutCode = new Map<number, OrcidFullWorkReply>()
    for (const item of bulk.bulk) if (item.work) byPutCode.set(item.work['put-code'], item.work)
    return byPutCode
  }

  /** A GET with the token when there are credentials; a 401 mints a new token once. */
  private async read(path: string, signal?: AbortSignal): Promise<unknown> {
    const url = new URL(`${this.settings.baseUrl.replace(/\/+$/, '')}/${path}`)
    for (let attempt = 1; ; attempt += 1) {
      const token = this.hasCredentials() ? await this.bearer(signal) : undefined
      try {
        const headers = token ? { ...ACCEPT, authorization: `Bearer ${token}` } : ACCEPT
        return (await this.client.json({ url, headers }, signal)).value
      } catch (error) {
        if (token && attempt === 1 && error instanceof SourceError && error.message.startsWith('HTTP 401')) {
          this.token = undefined
          continue
        }
        throw error
      }
    }
  }

  private bearer(signal?: AbortSignal): Promise<string> {
    this.token ??= this.mintToken(signal).catch((error: unknown) => {
      this.token = undefined
      throw error
    })
    return this.token
  }

  private async mintToken(signal?: AbortSignal): Promise<string> {
    const form = new URLSearchParams({
      client_id: this.settings.clientId ?? '',
      client_secret: this.settings.clientSecret ?? '',
      grant_type: 'client_credentials',
      scope: '/read-public',
    })
    const { value } = await this.client.json(
      { method: 'POST', url: new URL(this.settings.tokenUrl), headers: { accept: 'application/json' }, form },
      signal,
    )
    return expectShape('orcid', OrcidTokenShape, value, 'the token reply').access_token
  }
}

type OrcidGroup = OrcidWorks['group'][number]
type OrcidExternalIds = NonNullable<OrcidGroup['external-ids']>

/** The `self` DOI and PMID of a list of external ids (`part-of` and `version-of` never identify). */
function selfIdentifiers(ids: OrcidExternalIds | null | undefined): { doi?: string; pmid?: string } {
  const found: { doi?: string; pmid?: string } = {}
  for (const id of ids?.['external-id'] ?? []) {
    if ((id['external-id-relationship'] ?? 'self') !== 'self') continue
    const type = id['external-id-type'].toLowerCase()
    const value = id['external-id-normalized']?.value ?? id['external-id-value']
    const doi = type === 'doi' ? (normalizeDoi(value) ?? normalizeDoi(id['external-id-value'])) : undefined
    const pmid = type === 'pmid' ? normalizePmid(value) : undefined
    if (doi && !found.doi) found.doi = doi
    if (pmid && !found.pmid) found.pmid = pmid
  }
  return found
}

function contributors(full: OrcidFullWorkReply | undefined): SourceAuthor[] {
  const list = full?.contributors?.contributor ?? []
  return list.flatMap((contributor, index): SourceAuthor[] => {
    const name = contributor['credit-name']?.value?.trim()
    if (!name) return []
    const orcid = normalizeOrcid(
      contributor['contributor-orcid']?.path ?? contributor['contributor-orcid']?.uri,
    )
    const sequence = contributor['contributor-attributes']?.['contributor-sequence']
    const position =
      sequence === 'first' || index === 0 ? 'first' : index === list.length - 1 ? 'last' : 'middle'
    return [{ name, ...(orcid ? { orcid } : {}), position }]
  })
}

/** One ORCID group as a work: its summary, completed by the full work when it could be read. */
export function orcidWork(group: OrcidGroup, full: OrcidFullWorkReply | undefined): SourceWork {
  const summary = group['work-summary'][0]
  const ids = { ...selfIdentifiers(full?.['external-ids']), ...selfIdentifiers(group['external-ids']) }
  const title = plainText(full?.title?.title?.value ?? summary?.title?.title?.value)
  const date = full?.['publication-date'] ?? summary?.['publication-date']
  const container = plainText(full?.['journal-title']?.value ?? summary?.['journal-title']?.value)
  const abstract = plainText(full?.['short-description'])
  const type = full?.type ?? summary?.type
  const url = full?.url?.value ?? undefined
  return {
    source: 'orcid',
    ...(ids.doi ? { doi: ids.doi } : {}),
    ...(ids.pmid ? { pmid: ids.pmid } : {}),
    ...(summary ? { orcidPutCode: String(summary['put-code']) } : {}),
    ...(title ? { title } : {}),
    ...datedFields(
      yearNumber(date?.year?.value),
      monthNumber(date?.month?.value),
      Number(date?.day?.value ?? Number.NaN),
    ),
    ...(container ? { container } : {}),
    authors: contributors(full),
    ...(abstract ? { abstract } : {}),
    ...(type ? { type } : {}),
    ...(url ? { url } : ids.doi ? { url: `https://doi.org/${ids.doi}` } : {}),
    foundBecause: 'orcid_record',
    score: 1,
  }
}
