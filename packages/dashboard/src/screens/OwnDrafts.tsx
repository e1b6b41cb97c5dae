import { useQuery, useQueryClient } from '@tanstack/react-query'
import { type DraftSummary, draftsKey, listDrafts, readDraft, submitDraft } from '../api/drafts.ts'
import { useSignedIn } from '../api/session.ts'
import { FailureNote, useAction } from '../ui/action.tsx'
import { Empty, ErrorNote, Loading, Notice, Time } from '../ui/parts.tsx'
import { draftPartName } from './draft-words.ts'
import { FieldChangeRow } from './VersionHistory.tsx'

/**
 * The signed-in person's own changes to this profile that wait for review (CONTRACT §21): what each
 * changes, where it stands, the reviewer's comment on one sent back, and "Submit for review" for one not
 * submitted (a restore, a submit that failed) or sent back. Nothing shows while there is none.
 */
export function OwnDrafts({ organization, username }: { organization: number; username: string }) {
  const me = useSignedIn()
  const drafts = useQuery({
    queryKey: [...draftsKey(organization), 'list', 'waiting'],
    queryFn: () => listDrafts(organization, undefined),
  })
  if (drafts.isPending) return null
  if (drafts.isError)
    return (
      <section className="card own-drafts" aria-labelledby="own-drafts-title">
        <h2 id="own-drafts-title">Your changes waiting for review</h2>
        <ErrorNote error={drafts.error} retry={() => void drafts.refetch()} />
      </section>
    )
  const mine = drafts.data.filter(
    (draft) =>
      draft.author.id === me.id && draft.record.kind === 'profile' && draft.record.username === username,
  )
  if (mine.length === 0) return null
  return (
    <section className="card own-drafts" aria-labelledby="own-drafts-title">
      <h2 id="own-drafts-title">Your changes waiting for review</h2>
      <p className="hint">
        The public profile shows none of these until a reviewer approves them; the forms below show the
        profile as it is published.
      </p>
      <ul className="own-draft-list">
        {mine.map((draft) => (
          <OwnDraft key={draft.id} organization={organization} draft={draft} />
        ))}
      </ul>
    </section>
  )
}

function OwnDraft({ organization, draft }: { organization: number; draft: DraftSummary }) {
  const queries = useQueryClient()
  const { busy, failure, notice, run } = useAction()
  const part = draftPartName(draft)
  const changes = useQuery({
    queryKey: [...draftsKey(organization), 'draft', draft.id, draft.updated_at],
    queryFn: () => readDraft(organization, draft.id),
  })
  const submit = () =>
    void run(async () => {
      await submitDraft(organization, draft.id)
      await queries.invalidateQueries({ queryKey: draftsKey(organization) })
      return 'Submitted for review.'
    })
  const submittable = draft.state === 'open' || draft.state === 'returned'
  return (
    <li className="own-draft">
      <h3>{part}</h3>
      <p>
        <OwnDraftState draft={draft} />
      </p>
      {draft.state === 'returned' && draft.comment ? (
        <figure className="review-comment">
          <figcaption>The reviewer wrote:</figcaption>
          <blockquote>{draft.comment}</blockquote>
        </figure>
      ) : null}
      {changes.isPending ? <Loading what="what it changes" /> : null}
      {changes.isError ? <ErrorNote error={changes.error} retry={() => void changes.refetch()} /> : null}
      {changes.data && changes.data.diff.length === 0 ? (
        <Empty>It now changes nothing: the profile already reads this way.</Empty>
      ) : null}
      {changes.data && changes.data.diff.length > 0 ? (
        <ul className="field-changes" aria-label={`What your change to ${part.toLowerCase()} changes`}>
          {changes.data.diff.map((change) => (
            <FieldChangeRow key={change.field} change={change} />
          ))}
        </ul>
      ) : null}
      {submittable ? (
        <div className="actions">
          <button type="button" className="primary" disabled={busy} onClick={submit}>
            {draft.state === 'returned' ? 'Submit again as it is' : 'Submit for review'}
            <span className="visually-hidden"> ({part})</span>
          </button>
        </div>
      ) : null}
      <FailureNote failure={failure} />
      {notice ? <Notice>{notice}</Notice> : null}
    </li>
  )
}

function OwnDraftState({ draft }: { draft: DraftSummary }) {
  switch (draft.state) {
    case 'open':
      return <>Not submitted yet: reviewers see it once you submit it.</>
    case 'submitted':
      return (
        <>
          Waiting for a reviewer since <Time seconds={draft.updated_at} />.
        </>
      )
    case 'returned':
      return (
        <>
          Sent back to you. Change it in the form below and save (it is submitted again), or submit it again
          as it is.
        </>
      )
    case 'approved':
      return draft.publish_at === null ? (
        <>Approved.</>
      ) : (
        <>
          Approved: it will be published on <Time seconds={draft.publish_at} />.
        </>
      )
    default:
      return <>{draft.state}</>
  }
}
