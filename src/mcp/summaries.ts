import type { ReasonData, SimilarExpertData } from '../meaning/schemas.js'

/** How each kind of reason reads in a sentence. */
const REASON_NAMES: Record<ReasonData['kind'], string> = {
  concept: 'concepts',
  coauthor: 'co-authored works',
  term: 'words',
}

/** "concepts “Flood risk”, “Hydrology”; words “surge”": the reasons grouped by kind, in their order. */
function reasonsText(reasons: readonly ReasonData[]): string {
  const groups = new Map<ReasonData['kind'], string[]>()
  for (const { kind, label } of reasons) groups.set(kind, [...(groups.get(kind) ?? []), `“${label}”`])
  return [...groups].map(([kind, labels]) => `${REASON_NAMES[kind]} ${labels.join(', ')}`).join('; ')
}

/**
 * Experts found by meaning as a short numbered list a model reads well: name, username, job title,
 * score and why. The JSON beside it carries the same and the avatars.
 */
export function summarizeExperts(experts: readonly SimilarExpertData[], found: string): string {
  if (experts.length === 0) return `No expert found ${found}.`
  const lines = experts.map((expert, index) => {
    const name = `${expert.firstname} ${expert.lastname}`.trim() || expert.username
    const title = expert.job_title ? `, ${expert.job_title}` : ''
    const why = expert.reasons.length > 0 ? `\n   Why: ${reasonsText(expert.reasons)}` : ''
    return `${index + 1}. ${name} (username ${expert.username})${title}; score ${expert.score}${why}`
  })
  const count = experts.length === 1 ? '1 expert' : `${experts.length} experts`
  return [
    `${count} ${found}, best first:`,
    ...lines,
    'Use get_expert with a username for the full profile.',
  ].join('\n')
}
