import type { components } from '../../../client/src/schema.ts'
import { Time } from '../ui/parts.tsx'

type Run = components['schemas']['ImportRun']

const TRIGGERS: Readonly<Record<string, string>> = {
  schedule: 'Weekly refresh',
  request: 'Refresh now',
  cli: 'Command line',
}

const SOURCE_NAMES: Readonly<Record<string, string>> = {
  orcid: 'ORCID',
  openalex: 'OpenAlex',
  crossref: 'Crossref',
  pubmed: 'PubMed',
}
const sourceName = (source: string) => SOURCE_NAMES[source] ?? source

/** What a works refresh did: when, what it found, and what failed or was skipped per source. */
export function RunSummary({ run }: { run: Run }) {
  const { counts } = run
  return (
    <section className="run" aria-label={`Refresh of ${run.username}`}>
      <p>
        <strong>{TRIGGERS[run.trigger] ?? run.trigger}</strong> · started <Time seconds={run.started} /> ·{' '}
        {run.finished === null ? (
          <span className="badge">running</span>
        ) : (
          <span className={run.status === 'finished' ? 'badge ok' : 'badge warn'}>{run.status}</span>
        )}
      </p>
      {run.finished === null ? null : (
        <p className="muted">
          Found {counts.found}: {counts.created} new, {counts.updated} updated, {counts.claimed} claimed,{' '}
          {counts.pending} pending, {counts.rejected} rejected. Sources:{' '}
          {run.sources.map(sourceName).join(', ') || 'none'}.
        </p>
      )}
      {run.errors.length > 0 ? (
        <ul className="run-errors" aria-label="Errors">
          {run.errors.map((error) => (
            <li key={`${error.source}:${error.message}`} className="form-error">
              {sourceName(error.source)}: {error.message}
            </li>
          ))}
        </ul>
      ) : null}
      {run.notes.length > 0 ? (
        <ul className="muted" aria-label="Notes">
          {run.notes.map((note) => (
            <li key={`${note.source}:${note.message}`}>
              {sourceName(note.source)}: {note.message}
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  )
}
