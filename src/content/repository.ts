import { sql } from 'kysely'
import type { Queryable } from '../db/database.js'
import { reusableQuery } from '../db/reusable-query.js'
import type { ExpertRow, OrganizationProfilesTable } from '../db/schema.js'

/** The organization's public profile (the `corporationprofile` / `corporationsocial` sections). */
export const ORGANIZATION_PROFILE_COLUMNS = [
  'description',
  'website',
  'location_city',
  'location_state',
  'location_country',
  'location_postal',
  'location_address',
  'location_building',
  'location_room',
  'twitter',
  'facebook',
  'linkedin',
  'instagram',
  'youtube',
] as const

/** Content queries. Every one takes the organization, like the expert repository. */

export type OrganizationProfile = Omit<OrganizationProfilesTable, 'org_id'> & { id: number; name: string }

const expertWithOrganization = reusableQuery((db: Queryable, orgId: number, username: string) =>
  db
    .selectFrom('experts')
    .innerJoin('organizations', 'organizations.id', 'experts.org_id')
    .leftJoin('organization_profiles', 'organization_profiles.org_id', 'experts.org_id')
    .selectAll('experts')
    .select(['organizations.name as org_name'])
    .select(
      ORGANIZATION_PROFILE_COLUMNS.map(
        (column) => `organization_profiles.${column} as org_${column}` as const,
      ),
    )
    .where('experts.org_id', '=', orgId)
    .where('experts.username', '=', username),
)

/** The expert with its organization's public profile, in one query. */
export async function findExpertWithOrganization(
  db: Queryable,
  orgId: number,
  username: string,
): Promise<{ expert: ExpertRow; organization: OrganizationProfile } | undefined> {
  const [row] = await expertWithOrganization(db, orgId, username)
  if (!row) return undefined
  const record = row as unknown as Record<string, unknown>
  const expert: Record<string, unknown> = {}
  const organization: Record<string, unknown> = { id: orgId, name: row.org_name }
  for (const [key, value] of Object.entries(record)) {
    if (key === 'org_name') continue
    if (key.startsWith('org_') && key !== 'org_id') organization[key.slice(4)] = value ?? null
    else expert[key] = value
  }
  for (const column of ORGANIZATION_PROFILE_COLUMNS) organization[column] ??= null
  return { expert: expert as unknown as ExpertRow, organization: organization as OrganizationProfile }
}

export interface ProfileItemRow {
  id: number
  section: string
  position: number
  external_key: string
  data: string
}

export const listProfileItems: (db: Queryable, orgId: number, expertId: number) => Promise<ProfileItemRow[]> =
  reusableQuery((db: Queryable, orgId: number, expertId: number) =>
    db
      .selectFrom('profile_items')
      .select(['id', 'section', 'position', 'external_key', 'data'])
      .where('org_id', '=', orgId)
      .where('expert_id', '=', expertId)
      .orderBy('section')
      .orderBy('position')
      .orderBy('id'),
  )

/** Published posts that tag the expert, newest first. */
export const listExpertSpotlights = reusableQuery((db: Queryable, orgId: number, expertId: number) =>
  db
    .selectFrom('spotlights')
    .innerJoin('spotlight_experts', 'spotlight_experts.spotlight_id', 'spotlights.id')
    .select([
      'spotlights.id',
      'spotlights.title',
      'spotlights.published_at',
      'spotlights.created_at',
      'spotlights.featured_image',
    ])
    .where('spotlights.org_id', '=', orgId)
    .where('spotlight_experts.expert_id', '=', expertId)
    .where('spotlights.published', '=', 1)
    .orderBy(sql`coalesce(spotlights.published_at, spotlights.created_at)`, 'desc')
    .orderBy('spotlights.id', 'desc'),
)

/**
 * Published questions the expert answered, newest first, each once. Driven from the expert's answers
 * (index answers_expert_question), not from the organization's questions.
 */
export const listExpertQuestions = reusableQuery((db: Queryable, orgId: number, expertId: number) =>
  db
    .selectFrom('answers')
    .innerJoin('questions', 'questions.id', 'answers.question_id')
    .select(['questions.id', 'questions.question', 'questions.published_at', 'questions.created_at'])
    .where('answers.expert_id', '=', expertId)
    .where('questions.org_id', '=', orgId)
    .where('questions.published', '=', 1)
    .groupBy('questions.id')
    .orderBy(sql`coalesce(questions.published_at, questions.created_at)`, 'desc')
    .orderBy('questions.id', 'desc'),
)

const spotlightById = reusableQuery((db: Queryable, orgId: number, id: number) =>
  db.selectFrom('spotlights').selectAll().where('org_id', '=', orgId).where('id', '=', id),
)

export async function findSpotlight(db: Queryable, orgId: number, id: number) {
  return (await spotlightById(db, orgId, id))[0]
}

const questionById = reusableQuery((db: Queryable, orgId: number, id: number) =>
  db.selectFrom('questions').selectAll().where('org_id', '=', orgId).where('id', '=', id),
)

export async function findQuestion(db: Queryable, orgId: number, id: number) {
  return (await questionById(db, orgId, id))[0]
}

/** Experts tagged in a post, in the post's order. */
export const listTaggedExperts = reusableQuery((db: Queryable, orgId: number, spotlightId: number) =>
  db
    .selectFrom('spotlight_experts')
    .innerJoin('experts', 'experts.id', 'spotlight_experts.expert_id')
    .select(['experts.username', 'experts.firstname', 'experts.lastname', 'experts.job_title'])
    .where('experts.org_id', '=', orgId)
    .where('spotlight_experts.spotlight_id', '=', spotlightId)
    .orderBy('spotlight_experts.position'),
)

export const listAnswers = reusableQuery((db: Queryable, orgId: number, questionId: number) =>
  db
    .selectFrom('answers')
    .innerJoin('experts', 'experts.id', 'answers.expert_id')
    .select([
      'answers.id',
      'experts.username',
      'experts.firstname',
      'experts.lastname',
      'answers.answer',
      'answers.created_at',
    ])
    .where('experts.org_id', '=', orgId)
    .where('answers.question_id', '=', questionId)
    .orderBy('answers.position')
    .orderBy('answers.id'),
)

export type TaggingTable = 'spotlight_tags' | 'question_tags'

const tagsOf = (table: TaggingTable) =>
  reusableQuery((db: Queryable, orgId: number, ownerId: number) =>
    db
      .selectFrom(table)
      .innerJoin('content_tags', 'content_tags.id', `${table}.content_tag_id`)
      .select([`${table}.id as id`, 'content_tags.id as content_tag_id', 'content_tags.name as tag'])
      .where('content_tags.org_id', '=', orgId)
      .where(`${table}.owner_id`, '=', ownerId)
      .orderBy(`${table}.position`),
  )
const TAG_QUERIES = { spotlight_tags: tagsOf('spotlight_tags'), question_tags: tagsOf('question_tags') }

export async function listTags(db: Queryable, orgId: number, table: TaggingTable, ownerId: number) {
  return TAG_QUERIES[table](db, orgId, ownerId)
}
