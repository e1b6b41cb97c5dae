import { Link } from '@tanstack/react-router'
import { useState } from 'react'
import type { components } from '../../../client/src/schema.ts'

type MatchedExpert = components['schemas']['SimilarExpert']
type Reason = components['schemas']['MeaningReason']

const REASON_KINDS: readonly { kind: Reason['kind']; title: string }[] = [
  { kind: 'concept', title: 'Concepts' },
  { kind: 'coauthor', title: 'Co-authored' },
  { kind: 'term', title: 'Words in common' },
]

/**
 * Experts found by meaning (for a text, or like another expert), best first, each with why it was found.
 * `linked`: the names open the experts' profiles (an expert person reaches only its own).
 */
export function MatchedExperts({
  experts,
  label,
  linked,
}: {
  experts: readonly MatchedExpert[]
  label: string
  linked: boolean
}) {
  return (
    <ol className="expert-list matched-experts" aria-label={label}>
      {experts.map((expert) => (
        <MatchedRow key={expert.username} expert={expert} linked={linked} />
      ))}
    </ol>
  )
}

function MatchedRow({ expert, linked }: { expert: MatchedExpert; linked: boolean }) {
  // A photo that does not load shows as the blank circle, not a broken image.
  const [broken, setBroken] = useState(false)
  const name = `${expert.firstname} ${expert.lastname}`
  return (
    <li className="expert-row matched-row">
      {expert.avatar.small && !broken ? (
        <img src={expert.avatar.small} alt="" width={40} height={40} onError={() => setBroken(true)} />
      ) : (
        <span className="avatar-blank" />
      )}
      <div>
        {linked ? (
          <Link to="/experts/$username" params={{ username: expert.username }}>
            {name}
          </Link>
        ) : (
          <strong>{name}</strong>
        )}
        {expert.job_title ? <p className="muted">{expert.job_title}</p> : null}
        <Reasons reasons={expert.reasons} />
      </div>
    </li>
  )
}

function Reasons({ reasons }: { reasons: readonly Reason[] }) {
  const groups = REASON_KINDS.map(({ kind, title }) => ({
    title,
    labels: reasons.filter((reason) => reason.kind === kind).map((reason) => reason.label),
  })).filter((group) => group.labels.length > 0)
  if (groups.length === 0) return null
  return (
    <dl className="reasons">
      {groups.map((group) => (
        <div key={group.title}>
          <dt>{group.title}</dt>
          <dd>{group.labels.join(' · ')}</dd>
        </div>
      ))}
    </dl>
  )
}
