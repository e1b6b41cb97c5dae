import { useQuery, useQueryClient } from '@tanstack/react-query'
import { getRouteApi, Link } from '@tanstack/react-router'
import { type FormEvent, useId, useState } from 'react'
import {
  approveDraft,
  type Draft,
  type DraftState,
  type DraftSummary,
  draftsKey,
  listDrafts,
  readDraft,
  returnDraft,
} from '../api/drafts.ts'
import { ApiFailure, messageOf } from '../api/failure.ts'
import { useSignedIn } from '../api/session.ts'
import { FailureNote, useAction } from '../ui/action.tsx'
import { Empty, ErrorNote, Loading, Notice, Time } from '../ui/parts.tsx'
import {
  draftAuthorLine,
  draftPartName,
  draftRecordName,
  draftStateLabel,
  QUEUE_FILTERS,
} from './draft-words.ts'
import { FieldChangeRow } from './VersionHistory.tsx'

type Filter = DraftState | 'waiting'

const isFilter = (value: string): value is Filter => QUEUE_FILTERS.some((filter) => filter.value === value)

const badgeClass = (state: string) =>
  state === 'submitted' ? 'badge warn' : state === 'published' || state === 'approved' ? 'badge ok' : 'badge'

/**
 * The review queue (CONTRACT §21, `GET .../drafts`): the drafts in a state, oldest first, each with its
 * record, the part it changes, who wrote it (and for whom, a delegate) and when; a draft opens on its own
 * page.
 */
export function ReviewQueueScreen() {
  const me = useSignedIn()
  const [filter, setFilter] = useState<Filter>('submitted')
  const filterId = useId()
  const drafts = useQuery({
    queryKey: [...draftsKey(me.organization), 'list', filter],
    queryFn: () => listDrafts(me.organization, filter === 'waiting' ? undefined : filter),
  })
  const shown = QUEUE_FILTERS.find((choice) => choice.value === filter)?.label ?? ''
  return (
    <div className="review">
      <h1>Review</h1>
      <p className="hint">
        Changes whose authors need review wait here as drafts: the live profile, post or question stays as it
        is until a draft is approved.
      </p>
      <div className="field queue-filter">
        <label htmlFor={filterId}>Show</label>
        <select
          id={filterId}
          value={filter}
          onChange={(event) => {
            if (isFilter(event.target.value)) setFilter(event.target.value)
          }}
        >
          {QUEUE_FILTERS.map((choice) => (
            <option key={choice.value} value={choice.value}>
              {choice.label}
            </option>
          ))}
        </select>
      </div>
      {drafts.isPending ? <Loading what="the drafts" /> : null}
      {drafts.isError ? <ErrorNote error={drafts.error} retry={() => void drafts.refetch()} /> : null}
      {drafts.data && drafts.data.length === 0 ? (
        <Empty>
          {filter === 'submitted'
            ? 'Nothing waits for review.'
            : `No draft is here (${shown.toLowerCase()}).`}
        </Empty>
      ) : null}
      {drafts.data && drafts.data.length > 0 ? (
        <ol className="draft-queue" aria-label={`Drafts: ${shown}`}>
          {drafts.data.map((draft) => (
            <QueueItem key={draft.id} draft={draft} />
          ))}
        </ol>
      ) : null}
    </div>
  )
}

function QueueItem({ draft }: { draft: DraftSummary }) {
  return (
    <li className="card queue-item">
      <div className="queue-line">
        <Link to="/review/$id" params={{ id: String(draft.id) }} className="queue-title">
          {draftRecordName(draft)}: {draftPartName(draft).toLowerCase()}
        </Link>
        <span className={badgeClass(draft.state)}>{draftStateLabel(draft.state)}</span>
      </div>
      <p className="muted">
        {draftAuthorLine(draft)}, last changed <Time seconds={draft.updated_at} />
        {draft.state === 'approved' && draft.publish_at !== null ? (
          <>
            ; to be published on <Time seconds={draft.publish_at} />
          </>
        ) : null}
      </p>
    </li>
  )
}

const route = getRouteApi('/signed-in/review/$id')

/** One draft (`GET .../drafts/:id`): what it changes against the live record, and the reviewer's steps. */
export function ReviewDraftScreen() {
  const me = useSignedIn()
  const { id: param } = route.useParams()
  const id = Number(param)
  const valid = Number.isSafeInteger(id) && id > 0
  const draft = useQuery({
    queryKey: [...draftsKey(me.organization), 'draft', id],
    queryFn: () => readDraft(me.organization, id),
    enabled: valid,
  })
  // Kept here: the decision's form goes once the draft leaves `submitted`; its outcome stays, and so does
  // the refusal of a step that found the draft decided by someone else meanwhile.
  const [outcome, setOutcome] = useState('')
  const [refusal, setRefusal] = useState('')
  return (
    <div className="review review-draft">
      <p>
        <Link to="/review">Back to the review queue</Link>
      </p>
      {!valid ? <Empty>There is no such draft.</Empty> : null}
      {valid && draft.isPending ? <Loading what="the draft" /> : null}
      {draft.isError ? <ErrorNote error={draft.error} retry={() => void draft.refetch()} /> : null}
      {draft.data ? (
        <DraftView
          draft={draft.data}
          outcome={outcome}
          refusal={refusal}
          onDecided={(text) => {
            setRefusal('')
            setOutcome(text)
          }}
          onRefused={setRefusal}
          refetch={draft.refetch}
        />
      ) : null}
    </div>
  )
}

function DraftView({
  draft,
  outcome,
  refusal,
  onDecided,
  onRefused,
  refetch,
}: {
  draft: Draft
  outcome: string
  refusal: string
  onDecided: (outcome: string) => void
  onRefused: (message: string) => void
  refetch: () => Promise<unknown>
}) {
  const me = useSignedIn()
  const part = draftPartName(draft)
  return (
    <>
      <h1>
        {draftRecordName(draft)}: {part.toLowerCase()}
      </h1>
      <dl className="draft-facts">
        <dt>Written</dt>
        <dd>
          {draftAuthorLine(draft)}, opened <Time seconds={draft.created_at} />, last changed{' '}
          <Time seconds={draft.updated_at} />
        </dd>
        <dt>State</dt>
        <dd>
          <span className={badgeClass(draft.state)}>{draftStateLabel(draft.state)}</span>
          {draft.state === 'approved' && draft.publish_at !== null ? (
            <>
              {' '}
              to be published on <Time seconds={draft.publish_at} />
            </>
          ) : null}
        </dd>
        <dt>Live record</dt>
        <dd>
          <LiveRecordLink draft={draft} />
        </dd>
      </dl>
      {outcome ? <Notice>{outcome}</Notice> : null}
      {refusal && draft.state !== 'submitted' ? (
        <p className="form-error" role="alert">
          {refusal}
        </p>
      ) : null}
      {draft.comment && (draft.state === 'returned' || draft.state === 'submitted') ? (
        <figure className="review-comment">
          <figcaption>
            {draft.state === 'returned' ? 'Sent back with this comment:' : 'The last comment on it:'}
          </figcaption>
          <blockquote>{draft.comment}</blockquote>
        </figure>
      ) : null}
      {draft.conflict && draft.state !== 'published' ? <LiveChanges draft={draft} /> : null}
      <section className="card" aria-labelledby="draft-changes-title">
        <h2 id="draft-changes-title">What it changes</h2>
        {draft.diff.length === 0 ? (
          <Empty>It changes nothing: the live record already reads this way.</Empty>
        ) : (
          <ul className="field-changes" aria-label="What the draft changes">
            {draft.diff.map((change) => (
              <FieldChangeRow key={change.field} change={change} />
            ))}
          </ul>
        )}
      </section>
      {draft.state !== 'submitted' ? (
        <p className="hint">{notDecidable(draft)}</p>
      ) : draft.author.id === me.id ? (
        <p className="hint">This draft is yours: another reviewer approves it or sends it back.</p>
      ) : (
        <Decision draft={draft} onDecided={onDecided} onRefused={onRefused} refetch={refetch} />
      )}
    </>
  )
}

function notDecidable(draft: Draft): string {
  switch (draft.state) {
    case 'open':
      return 'Its author has not submitted it yet: it can be approved or sent back once submitted.'
    case 'returned':
      return 'It was sent back to its author: it can be decided again once they submit it.'
    case 'approved':
      return 'It is approved: it is published at its time.'
    default:
      return 'It is published: the live record reads as it says.'
  }
}

function LiveRecordLink({ draft }: { draft: Draft }) {
  const { kind, id, username } = draft.record
  if (kind === 'profile' && username)
    return (
      <Link to="/experts/$username" params={{ username }}>
        Open the profile
      </Link>
    )
  if (kind === 'spotlight')
    return (
      <Link to="/posts/$id" params={{ id: String(id) }}>
        Open the post
      </Link>
    )
  if (kind === 'question')
    return (
      <Link to="/questions/$id" params={{ id: String(id) }}>
        Open the question
      </Link>
    )
  return <>{draftRecordName(draft)}</>
}

/** The live record changed since the draft was written: what changed, and what approving would do. */
function LiveChanges({ draft }: { draft: Draft }) {
  const whole = draft.record.kind === 'profile' && draft.part !== 'account'
  return (
    <section className="card conflict-note" aria-labelledby="live-changes-title">
      <h2 id="live-changes-title">Changed live since it was written</h2>
      <p>
        Someone changed the live record after this draft was written. Approving it publishes the draft over
        {whole
          ? ' those changes: the section becomes what the draft says, and the live change is kept in the History, where it can be restored.'
          : ' them only where the draft changes the same fields; the other live changes stay.'}{' '}
        Read them first; if the author should start again from the live record, send the draft back.
      </p>
      <ul className="field-changes" aria-label="What changed live">
        {draft.live_changes.map((change) => (
          <FieldChangeRow key={change.field} change={change} />
        ))}
      </ul>
    </section>
  )
}

/** The question asked before approving a draft over live changes: what `force` does to this part. */
function overLiveChanges(draft: Draft): string {
  return draft.record.kind === 'profile' && draft.part !== 'account'
    ? 'Approve it over the live changes listed above? The section becomes what the draft says; the live change stays in the History.'
    : 'Approve it over the live changes listed above? The fields the draft changes take its values; the other live changes stay.'
}

/** A `datetime-local` value, read in UTC as the dashboard's other times are typed; NaN when unreadable. */
const secondsOfUtc = (value: string) => Date.parse(`${value}:00Z`) / 1000

/**
 * The reviewer's steps on a submitted draft: approve (now, or at a date and time in UTC) and send back
 * with a comment. A draft whose record changed live is approved over those changes only once the
 * reviewer confirms (`force`); a 409 that says so reads the draft again and asks.
 */
function Decision({
  draft,
  onDecided,
  onRefused,
  refetch,
}: {
  draft: Draft
  onDecided: (outcome: string) => void
  /** A 409's message, kept by the screen: the draft read again may no longer be decidable here. */
  onRefused: (message: string) => void
  refetch: () => Promise<unknown>
}) {
  const me = useSignedIn()
  const queries = useQueryClient()
  const [when, setWhen] = useState<'now' | 'later'>('now')
  const [at, setAt] = useState('')
  const [comment, setComment] = useState('')
  const [confirming, setConfirming] = useState(false)
  const [problem, setProblem] = useState<{ field: 'at' | 'comment'; message: string }>()
  const approval = useAction()
  const sending = useAction()
  const busy = approval.busy || sending.busy
  const ids = { at: useId(), comment: useId(), problem: useId() }

  /** A 409: the draft changed meanwhile (decided by someone else, a live change): read it again. */
  const refused = async (error: unknown) => {
    if (!(error instanceof ApiFailure) || error.status !== 409) return
    onRefused(messageOf(error))
    await refetch()
  }
  const decided = async (answer: Draft, outcome: string) => {
    queries.setQueryData([...draftsKey(me.organization), 'draft', draft.id], answer)
    await queries.invalidateQueries({ queryKey: [...draftsKey(me.organization), 'list'] })
    onDecided(outcome)
  }

  const approve = (force: boolean) => {
    setProblem(undefined)
    sending.reset()
    let publishAt: number | undefined
    if (when === 'later') {
      publishAt = secondsOfUtc(at)
      if (at === '' || Number.isNaN(publishAt)) {
        setProblem({ field: 'at', message: 'Choose the date and time to publish it at.' })
        return
      }
      if (publishAt * 1000 <= Date.now()) {
        setProblem({ field: 'at', message: 'That time has passed: choose a later one, or publish now.' })
        return
      }
    }
    void approval.run(async () => {
      try {
        const answer = await approveDraft(me.organization, draft.id, {
          ...(force ? { force: true } : {}),
          ...(publishAt === undefined ? {} : { publish_at: publishAt }),
        })
        setConfirming(false)
        await decided(
          answer,
          answer.state === 'approved' && answer.publish_at !== null
            ? `Approved: it will be published on ${new Date(answer.publish_at * 1000).toLocaleString()}.`
            : 'Approved and published: the live record now reads as the draft said.',
        )
      } catch (error) {
        await refused(error)
        throw error
      }
    })
  }

  const sendBack = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    setProblem(undefined)
    approval.reset()
    if (comment.trim() === '') {
      setProblem({ field: 'comment', message: 'Write what the author should change before sending it back.' })
      return
    }
    void sending.run(async () => {
      try {
        const answer = await returnDraft(me.organization, draft.id, comment)
        await decided(answer, 'Sent back to its author with your comment.')
      } catch (error) {
        await refused(error)
        throw error
      }
    })
  }

  // Once the draft reads as conflicting, the conflict note says it in words: the server's message is not
  // repeated under the button.
  const conflictRefusal =
    approval.failure instanceof ApiFailure && approval.failure.status === 409 && draft.conflict
  return (
    <section className="card decision" aria-labelledby="decision-title">
      <h2 id="decision-title">Your decision</h2>
      <fieldset className="choices">
        <legend>Publish</legend>
        <label className="field-flag">
          <input type="radio" name="when" checked={when === 'now'} onChange={() => setWhen('now')} /> Now,
          when approved
        </label>
        <label className="field-flag">
          <input type="radio" name="when" checked={when === 'later'} onChange={() => setWhen('later')} /> At a
          date and time
        </label>
        {when === 'later' ? (
          <div className="field">
            <label htmlFor={ids.at}>Publish at (date and time in UTC)</label>
            <input
              id={ids.at}
              type="datetime-local"
              value={at}
              onChange={(event) => setAt(event.target.value)}
              aria-invalid={problem?.field === 'at' ? true : undefined}
              aria-describedby={problem?.field === 'at' ? ids.problem : undefined}
            />
          </div>
        ) : null}
      </fieldset>
      {problem?.field === 'at' ? (
        <p id={ids.problem} className="form-error" role="alert">
          {problem.message}
        </p>
      ) : null}
      {draft.conflict && confirming ? (
        <fieldset className="confirm">
          <legend className="visually-hidden">Approve over the live changes</legend>
          <p>{overLiveChanges(draft)}</p>
          <div className="actions">
            <button type="button" className="primary" disabled={busy} onClick={() => approve(true)}>
              Yes, approve over the live changes
            </button>
            <button type="button" disabled={busy} onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </div>
        </fieldset>
      ) : (
        <div className="actions">
          <button
            type="button"
            className="primary"
            disabled={busy}
            onClick={() => (draft.conflict ? setConfirming(true) : approve(false))}
          >
            {when === 'later' ? 'Approve for that time' : 'Approve and publish'}
          </button>
        </div>
      )}
      {conflictRefusal ? (
        <p className="form-error" role="alert">
          It was not approved: the live record changed since the draft was written (see above). Approve it
          over those changes, or send it back.
        </p>
      ) : (
        <FailureNote failure={approval.failure} />
      )}
      <form className="send-back" onSubmit={sendBack} aria-label="Send back to the author" noValidate>
        <div className="field">
          <label htmlFor={ids.comment}>Comment for the author</label>
          <textarea
            id={ids.comment}
            rows={4}
            maxLength={5000}
            value={comment}
            onChange={(event) => setComment(event.target.value)}
            aria-invalid={problem?.field === 'comment' ? true : undefined}
            aria-describedby={problem?.field === 'comment' ? ids.problem : undefined}
          />
        </div>
        {problem?.field === 'comment' ? (
          <p id={ids.problem} className="form-error" role="alert">
            {problem.message}
          </p>
        ) : null}
        <FailureNote failure={sending.failure} />
        <div className="actions">
          <button type="submit" disabled={busy}>
            Send back
          </button>
        </div>
      </form>
    </section>
  )
}
