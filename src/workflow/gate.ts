import type { Queryable } from '../db/database.js'
import { parseItemData } from '../db/item-data.js'
import { ApiError } from '../errors.js'
import { plainText } from '../validation/html-text.js'
import { type PublishGate, readWorkflow } from './settings.js'

/**
 * The publish gate (CONTRACT §21, docs/editorial.md): what an organization requires of a profile before
 * it is published (`is_published` set to 1): a photo at least so large, a tagline and a biography at
 * most so long, at least so many topics. The checklist says, for each limit the organization set,
 * whether the profile meets it; publishing a profile that does not is a 409 naming each thing missing.
 */

export type GateCheck = keyof PublishGate

export interface ChecklistItem {
  check: GateCheck
  /** The profile section it concerns. */
  section: 'avatar' | 'tagline' | 'biography' | 'topic'
  ok: boolean
  /** The organization's limit. */
  limit: number
  /** The profile's figure: the photo's shorter side in pixels (0: no photo), characters, topics. */
  value: number
  /** What it is, or what is missing, as a sentence. */
  message: string
}

export interface Checklist {
  /** Whether the profile may be published: every item ok (true when the organization sets no gate). */
  ready: boolean
  items: ChecklistItem[]
}

const characters = (text: string) => [...text].length

/** The figures the gate reads, from the profile's photo, tagline, biography and topics. */
async function profileFigures(db: Queryable, orgId: number, expertId: number) {
  const items = await db
    .selectFrom('profile_items')
    .select(['section', 'data'])
    .where('org_id', '=', orgId)
    .where('expert_id', '=', expertId)
    .where('section', 'in', ['avatar', 'tagline', 'biography', 'topic'])
    .execute()
  let photo = 0
  let tagline = 0
  let biography = 0
  let topics = 0
  for (const item of items) {
    const data = parseItemData(item.data)
    if (item.section === 'topic') topics += 1
    else if (item.section === 'tagline' && typeof data.tagline === 'string')
      tagline = characters(data.tagline)
    else if (item.section === 'biography' && typeof data.biography === 'string')
      biography = characters(plainText(data.biography))
    else if (item.section === 'avatar')
      for (const rendition of Object.values(data)) {
        if (typeof rendition !== 'object' || rendition === null) continue
        const width: unknown = Reflect.get(rendition, 'width')
        const height: unknown = Reflect.get(rendition, 'height')
        if (typeof width === 'number' && typeof height === 'number')
          photo = Math.max(photo, Math.min(width, height))
      }
  }
  return { photo, tagline, biography, topics }
}

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`

/** The checklist of one profile against `gate`: one item per limit set. */
export async function gateChecklist(
  db: Queryable,
  orgId: number,
  expertId: number,
  gate: PublishGate,
): Promise<Checklist> {
  const set = Object.values(gate).some((limit) => limit !== null)
  if (!set) return { ready: true, items: [] }
  const figures = await profileFigures(db, orgId, expertId)
  const items: ChecklistItem[] = []
  if (gate.photo_min_px !== null) {
    const { photo } = figures
    const ok = photo >= gate.photo_min_px
    items.push({
      check: 'photo_min_px',
      section: 'avatar',
      ok,
      limit: gate.photo_min_px,
      value: photo,
      message:
        photo === 0
          ? `has no photo: one of at least ${gate.photo_min_px} px is needed`
          : ok
            ? `has a photo of ${photo} px, at least ${gate.photo_min_px} px`
            : `has a photo of ${photo} px, smaller than the ${gate.photo_min_px} px needed`,
    })
  }
  if (gate.tagline_max !== null) {
    const { tagline } = figures
    const ok = tagline <= gate.tagline_max
    items.push({
      check: 'tagline_max',
      section: 'tagline',
      ok,
      limit: gate.tagline_max,
      value: tagline,
      message: ok
        ? `has a tagline of ${plural(tagline, 'character')}, at most ${gate.tagline_max}`
        : `has a tagline of ${plural(tagline, 'character')}, longer than the ${gate.tagline_max} allowed`,
    })
  }
  if (gate.biography_max !== null) {
    const { biography } = figures
    const ok = biography <= gate.biography_max
    items.push({
      check: 'biography_max',
      section: 'biography',
      ok,
      limit: gate.biography_max,
      value: biography,
      message: ok
        ? `has a biography of ${plural(biography, 'character')} of text, at most ${gate.biography_max}`
        : `has a biography of ${plural(biography, 'character')} of text, longer than the ${gate.biography_max} allowed`,
    })
  }
  if (gate.topics_min !== null) {
    const { topics } = figures
    const ok = topics >= gate.topics_min
    items.push({
      check: 'topics_min',
      section: 'topic',
      ok,
      limit: gate.topics_min,
      value: topics,
      message: ok
        ? `has ${plural(topics, 'topic')}, at least ${gate.topics_min}`
        : `has ${plural(topics, 'topic')}, fewer than the ${gate.topics_min} needed`,
    })
  }
  return { ready: items.every((item) => item.ok), items }
}

/** The checklist of one profile against its organization's gate. */
export async function publishChecklist(db: Queryable, orgId: number, expertId: number): Promise<Checklist> {
  return gateChecklist(db, orgId, expertId, (await readWorkflow(db, orgId)).gate)
}

/**
 * Refuses to publish a profile that does not pass its organization's gate: a 409 `conflict` whose
 * details name each thing missing (`field`: the section). Call it in the publishing write's transaction.
 */
export async function assertPublishable(
  trx: Queryable,
  orgId: number,
  expert: { id: number; username: string },
): Promise<void> {
  const { ready, items } = await publishChecklist(trx, orgId, expert.id)
  if (ready) return
  const missing = items.filter((item) => !item.ok)
  throw new ApiError(
    'conflict',
    `The profile ${expert.username} cannot be published: it ${missing.map((item) => item.message).join('; it ')}. See GET .../expert/${expert.username}/checklist.`,
    {
      details: missing.map((item) => ({
        field: item.section,
        message: item.message,
        check: item.check,
        limit: item.limit,
        value: item.value,
      })),
    },
  )
}
