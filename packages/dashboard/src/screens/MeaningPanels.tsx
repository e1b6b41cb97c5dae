import { useQuery, useQueryClient } from '@tanstack/react-query'
import type { components } from '../../../client/src/schema.ts'
import { api } from '../api/client.ts'
import { dataOf } from '../api/failure.ts'
import { useSignedIn } from '../api/session.ts'
import { FailureNote, useAction } from '../ui/action.tsx'
import { MatchedExperts } from '../ui/MatchedExperts.tsx'
import { Empty, ErrorNote, Loading, Notice } from '../ui/parts.tsx'

const SIMILAR = 5

const similarKey = (organization: number, username: string) => ['similar', organization, username]
const conceptsKey = (organization: number, username: string) => ['concepts', organization, username]

/** The experts most like this one (CONTRACT §20), with why. */
export function SimilarExpertsPanel({ username }: { username: string }) {
  const me = useSignedIn()
  const similar = useQuery({
    queryKey: similarKey(me.organization, username),
    queryFn: async () =>
      dataOf(
        await api.GET('/v2/organization/{corporation}/expert/{username}/similar', {
          params: { path: { corporation: me.organization, username }, query: { limit: SIMILAR } },
        }),
      ).experts,
  })
  return (
    <section className="card meaning-panel" aria-labelledby="similar-title">
      <h2 id="similar-title">Similar experts</h2>
      {similar.isPending ? <Loading what="similar experts" /> : null}
      {similar.isError ? <ErrorNote error={similar.error} retry={() => void similar.refetch()} /> : null}
      {similar.data ? (
        similar.data.length === 0 ? (
          <Empty>No expert shares this profile’s concepts, works or words yet.</Empty>
        ) : (
          // An expert person reaches only its own profile: the others are names, not links.
          <MatchedExperts experts={similar.data} label="Similar experts" linked={me.role !== 'expert'} />
        )
      ) : null}
    </section>
  )
}

type Concept = components['schemas']['ExpertConcept']

/**
 * The concepts of the expert's fingerprint, strongest first. Whoever may edit the profile hides a concept
 * that misrepresents the expert (or shows it again); a hidden one counts in no match.
 */
export function ConceptsPanel({ username, writable }: { username: string; writable: boolean }) {
  const me = useSignedIn()
  const queries = useQueryClient()
  const { busy, failure, notice, run } = useAction()
  const concepts = useQuery({
    queryKey: conceptsKey(me.organization, username),
    queryFn: async () =>
      dataOf(
        await api.GET('/v2/organization/{corporation}/expert/{username}/concepts', {
          params: { path: { corporation: me.organization, username } },
        }),
      ).concepts,
  })
  const toggle = (concept: Concept) =>
    void run(async () => {
      dataOf(
        await api.PUT('/v2/organization/{corporation}/expert/{username}/concepts/{concept}', {
          params: { path: { corporation: me.organization, username, concept: concept.concept } },
          body: { hidden: !concept.hidden },
        }),
      )
      await Promise.all([
        queries.invalidateQueries({ queryKey: conceptsKey(me.organization, username) }),
        queries.invalidateQueries({ queryKey: ['similar', me.organization] }),
      ])
      return concept.hidden ? `“${concept.label}” is shown again.` : `“${concept.label}” is hidden.`
    })

  return (
    <section className="card meaning-panel" aria-labelledby="concepts-title">
      <h2 id="concepts-title">Concepts</h2>
      <p className="muted">
        What the profile’s topics, keywords and claimed works say about the expert, strongest first
        {writable ? '. A hidden concept counts in no match and no similar experts.' : '.'}
      </p>
      {concepts.isPending ? <Loading what="the concepts" /> : null}
      {concepts.isError ? <ErrorNote error={concepts.error} retry={() => void concepts.refetch()} /> : null}
      {concepts.data ? (
        concepts.data.length === 0 ? (
          <Empty>No concept yet: add topics or keywords, or claim publications.</Empty>
        ) : (
          <ul className="concept-list" aria-label="Concepts">
            {concepts.data.map((concept) => (
              <li key={concept.concept} className={concept.hidden ? 'concept hidden-concept' : 'concept'}>
                <span className="concept-label">{concept.label}</span>
                {concept.hidden ? (
                  <span className="badge warn">Hidden</span>
                ) : (
                  <meter
                    min={0}
                    max={1}
                    value={concept.weight}
                    aria-label={`Weight of ${concept.label}`}
                    title={`Weight ${concept.weight.toFixed(2)}`}
                  />
                )}
                {writable ? (
                  <button type="button" disabled={busy} onClick={() => toggle(concept)}>
                    {concept.hidden ? 'Show' : 'Hide'}
                    <span className="visually-hidden"> {concept.label}</span>
                  </button>
                ) : null}
              </li>
            ))}
          </ul>
        )
      ) : null}
      {notice ? <Notice>{notice}</Notice> : null}
      <FailureNote failure={failure} />
    </section>
  )
}
