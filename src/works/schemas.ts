import { type Static, Type } from 'typebox'
import { cursorPaging, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, NextCursor, nullable } from '../http/paging.js'
import { ExpertParams } from '../http/params.js'
import { Id } from '../validation/text.js'

/** Request and response schemas of the works routes (CONTRACT §19). */

const UnixTime = (description: string) => Type.Integer({ description: `${description}, unix seconds` })

export { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE }
export const MAX_DECISIONS = 100

const State = Type.Union(
  [
    Type.Literal('pending', { title: 'Pending' }),
    Type.Literal('claimed', { title: 'Claimed' }),
    Type.Literal('rejected', { title: 'Rejected' }),
    Type.Literal('hidden', { title: 'Hidden' }),
  ],
  {
    title: 'State',
    description:
      "pending: waits for a decision; claimed: the expert wrote it (it is in the article section); rejected: not the expert's, never offered again; hidden: the expert's, but not shown",
    'x-message': 'must be pending, claimed, rejected or hidden',
  },
)

const paging = cursorPaging('the first page')

export const WorksQuery = Type.Object(
  { state: Type.Optional(State), ...paging },
  { additionalProperties: false },
)

export const WorkParams = Type.Object({
  ...ExpertParams.properties,
  id: Id('The work id'),
})

export const WorkDecision = Type.Object(
  { state: State },
  { additionalProperties: false, title: 'WorkDecision' },
)

export const WorkDecisions = Type.Object(
  {
    decisions: Type.Array(
      Type.Object({ id: Id('The work id'), state: State }, { additionalProperties: false }),
      {
        minItems: 1,
        maxItems: MAX_DECISIONS,
        description: `Up to ${MAX_DECISIONS} decisions, applied all together or not at all`,
        'x-message': `must hold 1 to ${MAX_DECISIONS} decisions`,
      },
    ),
  },
  { additionalProperties: false, title: 'WorkDecisions' },
)

const SourceName = Type.String({ description: 'orcid, openalex, crossref or pubmed' })

export const WorkView = Type.Object(
  {
    id: Type.Integer({ description: 'The work id' }),
    state: State,
    reason: Type.String({
      description: 'Why it was found: authenticated_orcid, orcid_record, identifier or name_affiliation',
    }),
    score: Type.Number({ description: 'How sure the signal is that the expert wrote it, 0 to 1' }),
    note: nullable(Type.String(), 'Why a policy or an earlier rejection decided it'),
    first_seen: UnixTime('When a source first offered it'),
    decided_by: nullable(
      Type.String(),
      'person:<id>, client:<id>, cli or system (a policy or a signal); null while pending',
    ),
    decided_at: nullable(Type.Integer(), 'When it was decided, unix seconds'),
    doi: nullable(Type.String(), 'Lower-case DOI'),
    pmid: nullable(Type.String(), 'PubMed id'),
    openalex_id: nullable(Type.String(), 'OpenAlex work id'),
    title: nullable(Type.String(), 'Null while no source has given its metadata (it is looked up again)'),
    year: nullable(Type.Integer(), 'Publication year'),
    container: nullable(Type.String(), 'Journal or book'),
    authors: Type.Array(Type.String()),
    url: nullable(Type.String(), 'https://doi.org/<doi>, or the link a source gave'),
    provenance: Type.Record(Type.String(), SourceName, { description: 'Which source gave each field' }),
    possible_duplicates: Type.Array(Type.Integer(), {
      description:
        'Works that look the same (title, year, first author): review them, they are never merged by themselves',
    }),
  },
  { title: 'Work' },
)

export const WorkList = Type.Object(
  { works: Type.Array(WorkView), next_cursor: NextCursor },
  { title: 'WorkList' },
)

export const DecisionsResult = Type.Object(
  { works: Type.Array(WorkView), updated: Type.Integer({ description: 'How many changed state' }) },
  { title: 'WorkDecisionsResult' },
)

const Message = Type.Object({ source: Type.String(), message: Type.String() })

export const RunView = Type.Object(
  {
    id: Type.Integer(),
    username: Type.String({ description: 'The expert refreshed' }),
    trigger: Type.String({ description: 'schedule, request (refresh now) or cli' }),
    status: Type.String({
      description:
        'running, finished, failed, or interrupted (the process running it stopped; another refreshed the expert again)',
    }),
    sources: Type.Array(Type.String(), { description: 'The sources asked' }),
    counts: Type.Object({
      found: Type.Integer(),
      created: Type.Integer(),
      updated: Type.Integer(),
      claimed: Type.Integer(),
      pending: Type.Integer(),
      rejected: Type.Integer(),
    }),
    errors: Type.Array(Message, { description: 'What failed, per source' }),
    notes: Type.Array(Message, { description: 'Sources skipped and why (a missing setting)' }),
    started: UnixTime('When it started'),
    finished: nullable(Type.Integer(), 'When it finished, unix seconds; null while running'),
  },
  { title: 'ImportRun' },
)

export const RunList = Type.Object(
  { runs: Type.Array(RunView), next_cursor: NextCursor },
  { title: 'ImportRunList' },
)

export const RunsQuery = Type.Object(
  {
    username: Type.Optional(ExpertParams.properties.username),
    ...paging,
  },
  { additionalProperties: false },
)

/** One expert's runs (`GET .../expert/:username/works/runs`): the paging of the run log, no filter. */
export const ExpertRunsQuery = Type.Object({ ...paging }, { additionalProperties: false })

export type WorkDecisionsInput = Static<typeof WorkDecisions>
