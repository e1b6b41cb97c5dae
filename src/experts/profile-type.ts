import type { ProfileType } from '../db/schema.js'
import { type ApiError, notFound } from '../errors.js'

/**
 * The two kinds of profile. An expert and a staff member are the same record on the same engine
 * (account, sections, read documents, deletes); the kind decides the URL (each registered in its own
 * folder: ./routes.ts, src/staff/routes.ts), the names in the OpenAPI document, and which lookups find it. Both are read with `read:public`,
 * narrowed to published, non-private profiles (src/derived/audience.ts).
 */
export interface ProfileKind {
  type: ProfileType
  /** The collection path, `/v2/organization/:corporation/<segment>` (the rename redirect reads it). */
  path: string
  /** The operationId word: `getExpert`, `getStaff`, ... */
  operation: string
  /** A profile in a sentence: `an expert`, `a staff member`. */
  noun: string
  /** The OpenAPI tags of the account and profile routes, and of the section routes. */
  tag: string
  sectionsTag: string
}

export const EXPERT_KIND: ProfileKind = {
  type: 'expert',
  path: '/v2/organization/:corporation/expert',
  operation: 'Expert',
  noun: 'an expert',
  tag: 'experts',
  sectionsTag: 'profile sections',
}

export const STAFF_KIND: ProfileKind = {
  type: 'staff',
  path: '/v2/organization/:corporation/staff',
  operation: 'Staff',
  noun: 'a staff member',
  tag: 'staff',
  sectionsTag: 'staff',
}

/** 404 for a username that names no profile of this type in the organization. */
export function profileNotFound(type: ProfileType, username: string): ApiError {
  return notFound(`${type === 'staff' ? 'Staff member' : 'Expert'} ${username}`)
}
