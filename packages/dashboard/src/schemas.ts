import type { JsonSchema } from './forms/model.ts'
import generated from './generated/schemas.json'

/** How a section holds its elements: one element, a set of names, or an ordered list. */
export type SectionShape = 'single' | 'names' | 'list'

export interface SectionSchema {
  name: string
  shape: SectionShape
  create: JsonSchema
  update: JsonSchema
}

/**
 * The write schemas of the API, generated from the server's own tables by `npm run client:generate`
 * (scripts/dashboard-schema.ts): the forms are built from them, never written by hand.
 */
/** The organization's profile (`PUT /v2/organization/:corporation`). */
export const ORGANIZATION_SCHEMA: JsonSchema = generated.organization.update

/** The organization's single sign-on (`PUT /v2/organization/:corporation/sso`). */
export const SSO_SCHEMA: JsonSchema = generated.sso.update

/** A new API client (`POST /v2/organization/:corporation/client`); its scopes are chosen from `SCOPE_CHOICES`. */
export const CLIENT_SCHEMA: JsonSchema = generated.client.create

export interface ScopeChoice {
  name: string
  description: string
  /** In a new client's scopes when none are named. */
  default: boolean
}

/** The scopes a client may hold, as the server's table describes them. */
export const SCOPE_CHOICES: readonly ScopeChoice[] = generated.client.scopes

/** The webhook (`PUT /v2/organization/:corporation/webhook`). */
export const WEBHOOK_SCHEMA: JsonSchema = generated.webhook.set
/** A person of the organization (`POST|PUT /v2/organization/:corporation/people`). */
export const PERSON_SCHEMAS: { create: JsonSchema; update: JsonSchema } = generated.person

export const EXPERT_SCHEMAS: { create: JsonSchema; update: JsonSchema } = generated.expert
export interface ContentSchema {
  create: JsonSchema
  update: JsonSchema
}

/** Posts, Q&A items and answers: the same generated write schemas. */
export const CONTENT_SCHEMAS: Readonly<Record<'post' | 'question' | 'answer', ContentSchema>> =
  generated.content

/** How the server names each content kind: its API path word and the words the screens use. */
export interface ContentKindWords {
  path: string
  noun: string
  heading: string
  singular: string
  plural: string
  /** The field that names an item in lists. */
  titleField: string
  /** Who an item shows, before their names: "With", "Answered by". */
  people: string
}

/** Posts (`spotlight`) and Q&A items (`question`), from the server's table of content kinds. */
export const CONTENT_KIND_WORDS: Readonly<Record<'spotlight' | 'question', ContentKindWords>> =
  generated.contentKinds

export const SECTION_SCHEMAS: readonly SectionSchema[] = generated.sections.map((section) => ({
  ...section,
  shape: section.shape === 'single' || section.shape === 'names' ? section.shape : 'list',
}))

/** Headings of the sections, where the API's name is not already a word. */
const LABELS: Readonly<Record<string, string>> = {
  cv: 'CV',
  seo: 'Search engines (SEO)',
  eventappearance: 'Event appearances',
  mediaappearance: 'Media appearances',
  researchfocus: 'Research focus',
  researchgrant: 'Research grants',
  sampletalk: 'Sample talks',
  profiletype: 'Profile types',
  slideshare: 'SlideShare',
  youtube: 'YouTube',
  podchaser: 'Podchaser',
}

export function sectionLabel(name: string): string {
  return LABELS[name] ?? name.charAt(0).toUpperCase() + name.slice(1)
}
