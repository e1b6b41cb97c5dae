import { useMutation } from '@tanstack/react-query'
import { type FormEvent, useState } from 'react'
import { api } from '../api/client.ts'
import { dataOf } from '../api/failure.ts'
import { useSignedIn } from '../api/session.ts'
import { MatchedExperts } from '../ui/MatchedExperts.tsx'
import { Empty, ErrorNote, Loading } from '../ui/parts.tsx'

/** The API's limit on a pasted text (CONTRACT §20). */
export const MAX_TEXT = 20_000
const RESULTS = 20

/** Why a text cannot be sent, or undefined when it can. */
export function textProblem(text: string): string | undefined {
  if (!text.trim()) return 'Paste a text first: a press release or a journalist’s question.'
  if (text.length > MAX_TEXT)
    return `The text has ${text.length.toLocaleString()} characters; at most ${MAX_TEXT.toLocaleString()} are read. Shorten it.`
  return undefined
}

/** "Find experts": a pasted press release or question, and the experts whose work it is about. */
export function FindExpertsScreen() {
  const me = useSignedIn()
  const [text, setText] = useState('')
  const [problem, setProblem] = useState<string>()
  const match = useMutation({
    mutationFn: async (pasted: string) =>
      dataOf(
        await api.POST('/v2/organization/{corporation}/expert/match', {
          params: { path: { corporation: me.organization } },
          body: { text: pasted, limit: RESULTS },
        }),
      ).experts,
  })

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const found = textProblem(text)
    setProblem(found)
    if (!found) match.mutate(text)
  }
  const over = text.length > MAX_TEXT

  return (
    <div className="find-experts">
      <div className="page-head">
        <h1>Find experts</h1>
      </div>
      <form className="card" onSubmit={submit} noValidate aria-labelledby="find-title">
        <h2 id="find-title" className="visually-hidden">
          Text to match
        </h2>
        <div className="field">
          <label htmlFor="find-text">Press release or question</label>
          <p className="hint" id="find-hint">
            Paste a text; the experts whose concepts, works and words it shares come first. DOIs and PMIDs in
            it count too.
          </p>
          <textarea
            id="find-text"
            rows={8}
            value={text}
            aria-describedby={problem ? 'find-hint find-count find-problem' : 'find-hint find-count'}
            aria-invalid={problem || over ? true : undefined}
            onChange={(event) => {
              setText(event.target.value)
              if (problem) setProblem(undefined)
            }}
          />
          <p className={over ? 'hint field-error' : 'hint'} id="find-count">
            {text.length.toLocaleString()} of {MAX_TEXT.toLocaleString()} characters
          </p>
          {problem ? (
            <p className="field-error" id="find-problem" role="alert">
              {problem}
            </p>
          ) : null}
        </div>
        <div className="actions">
          <button type="submit" className="primary" disabled={match.isPending}>
            Find experts
          </button>
        </div>
      </form>
      <section aria-label="Experts found" className="results">
        {match.isPending ? <Loading what="matching experts" /> : null}
        {match.isError ? <ErrorNote error={match.error} retry={() => match.mutate(text)} /> : null}
        {match.data ? (
          match.data.length === 0 ? (
            <Empty>No expert matches this text. Try a longer text, or one with the field’s own words.</Empty>
          ) : (
            <>
              <p role="status" className="muted">
                {match.data.length === 1
                  ? '1 expert, best first'
                  : `${match.data.length} experts, best first`}
              </p>
              <MatchedExperts experts={match.data} label="Matching experts" linked />
            </>
          )
        ) : null}
      </section>
    </div>
  )
}
