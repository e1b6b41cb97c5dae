import { type Static, Type } from 'typebox'
import { choice, ExpertListItem, paging, Query } from '../search/schemas.js'

/**
 * The staff and employee lists: the organization's staff members, or its staff members and experts
 * together, a page at a time, with the expert search's `q` (then by relevance, else by name) and its
 * privacy and publication filters.
 */
export const ProfileListQuery = Type.Object(
  {
    q: Query,
    access: choice(['public', 'private', 'all'] as const, 'Privacy filter (default public)'),
    status: choice(['all', 'published', 'unpublished'] as const, 'Publication filter (default all)'),
    ...paging,
  },
  { additionalProperties: false, title: 'ProfileListQuery' },
)
export type ProfileListInput = Static<typeof ProfileListQuery>

const Total = Type.Integer({ description: 'Exact number of matches' })

export const StaffList = Type.Object(
  { staff: Type.Array(ExpertListItem), total: Total },
  { title: 'StaffList' },
)

export const EmployeeListItem = Type.Object(
  {
    ...ExpertListItem.properties,
    type: Type.String({ enum: ['expert', 'staff'], description: 'An expert or a staff member' }),
  },
  { title: 'EmployeeListItem' },
)

export const EmployeeList = Type.Object(
  { employees: Type.Array(EmployeeListItem), total: Total },
  { title: 'EmployeeList' },
)
