import { type SourcesConfig, type SourcesDeps, sourcesFrom } from './index.js'
import { SourceError, type SourceName } from './source.js'

/** One source's answer to the live smoke check. */
export interface SourceCheck {
  source: SourceName
  /** `ok`: the replies fit the shape contract; `drift`: they do not (see `problems`); `failed`: no reply. */
  status: 'ok' | 'drift' | 'skipped' | 'failed'
  /** Drift by field path, or why the source was skipped or failed. */
  problems: string[]
}

const ALL: SourceName[] = ['orcid', 'openalex', 'crossref', 'pubmed']

/**
 * Reads one live reply per endpoint of every source for a public record (ORCID's own
 * `0000-0002-1825-0097` by default) and checks it against the connectors' shape contracts.
 */
export async function checkSources(
  config: SourcesConfig,
  orcid: string,
  deps: SourcesDeps = {},
  signal?: AbortSignal,
): Promise<SourceCheck[]> {
  const sources = sourcesFrom(config, { maxWaitMs: 0, ...deps })
  return Promise.all(
    ALL.map(async (name): Promise<SourceCheck> => {
      const source = sources.find((candidate) => candidate.name === name)
      if (!source) return { source: name, status: 'skipped', problems: ['turned off (EXPERTDIR_SOURCES)'] }
      const skip = source.skipReason()
      if (skip !== null) return { source: name, status: 'skipped', problems: [skip] }
      if (!source.probe) return { source: name, status: 'skipped', problems: ['no smoke check'] }
      try {
        const problems = await source.probe(orcid, signal)
        return { source: name, status: problems.length === 0 ? 'ok' : 'drift', problems }
      } catch (error) {
        if (error instanceof SourceError && /does not have the expected shape/.test(error.message)) {
          return { source: name, status: 'drift', problems: [error.message] }
        }
        return {
          source: name,
          status: 'failed',
          problems: [error instanceof Error ? error.message : String(error)],
        }
      }
    }),
  )
}
