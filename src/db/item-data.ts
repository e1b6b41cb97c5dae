import { isObject } from '../validation/guards.js'

/**
 * A profile item's stored `data` (profile_items.data): the element as served, minus `id`, as one JSON
 * object written by src/profiles/sections.ts. Every reader parses it here.
 */
export type ItemData = Readonly<Record<string, unknown>>

export function parseItemData(data: string): ItemData {
  const value: unknown = JSON.parse(data)
  return isObject(value) ? value : {}
}
