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

/** A found expert as the expert search lists it: the fields a sentence about media availability reads. */
export interface ListedExpert {
  username: string
  firstname: string
  lastname: string
  job_title: string
  media_available: number
  media_available_until: number | null
  interview_languages: readonly string[]
  remote_ready: number
  studio_ready: number
}

/** Made on first use: ICU's locale data stays unloaded in a process that writes no summary. */
let languageNames: Intl.DisplayNames | undefined

function languageName(tag: string): string {
  languageNames ??= new Intl.DisplayNames(['en'], { type: 'language', fallback: 'code' })
  return languageNames.of(tag) ?? tag
}

/** "available for media until 2026-12-01 14:00 UTC; interviews in English, French (Canada); remote or in a studio". */
export function availabilityText(expert: ListedExpert): string {
  if (expert.media_available !== 1) return 'not available for media at the moment'
  const until =
    expert.media_available_until === null
      ? ''
      : ` until ${new Date(expert.media_available_until * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`
  const languages =
    expert.interview_languages.length > 0
      ? `; interviews in ${expert.interview_languages.map((tag) => languageName(tag)).join(', ')}`
      : ''
  const places = [expert.remote_ready ? 'remote' : '', expert.studio_ready ? 'in a studio' : ''].filter(
    Boolean,
  )
  return `available for media${until}${languages}${places.length > 0 ? `; ${places.join(' or ')}` : ''}`
}

/** The expert search's page as numbered lines, each saying whether the expert can be interviewed. */
export function summarizeSearch(result: { experts: readonly ListedExpert[]; total: number }): string {
  if (result.experts.length === 0) return 'No expert matches.'
  const lines = result.experts.map((expert, index) => {
    const name = `${expert.firstname} ${expert.lastname}`.trim() || expert.username
    const title = expert.job_title ? `, ${expert.job_title}` : ''
    return `${index + 1}. ${name} (username ${expert.username})${title}: ${availabilityText(expert)}`
  })
  return [
    `${result.total === 1 ? '1 expert matches' : `${result.total} experts match`}; this page:`,
    ...lines,
    'Use get_expert with a username for the full profile; media_available=1 keeps only experts available for media.',
  ].join('\n')
}
