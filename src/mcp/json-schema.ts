import type { TSchema } from 'typebox'

/** A tool's input or output schema as MCP publishes it: a JSON Schema object whose root is an object. */
export interface ObjectJsonSchema {
  type: 'object'
  properties?: Record<string, object>
  required?: string[]
  [keyword: string]: unknown
}

/**
 * Our validator's own keywords (`x-message`, `x-subdivision`) drive its messages and cross-field
 * checks; they mean nothing to another validator, so the published copy leaves them out.
 */
function withoutExtensions(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutExtensions)
  if (typeof node !== 'object' || node === null) return node
  return Object.fromEntries(
    Object.entries(node)
      .filter(([key]) => !key.startsWith('x-'))
      .map(([key, value]) => [key, withoutExtensions(value)]),
  )
}

/**
 * A TypeBox object schema (one the API validates with) as plain JSON Schema for `tools/list`: the same
 * properties, types, limits and descriptions, so a tool's arguments follow the API's rules.
 */
export function toolSchema(schema: TSchema): ObjectJsonSchema {
  const plain = withoutExtensions(JSON.parse(JSON.stringify(schema)))
  if (typeof plain !== 'object' || plain === null || Array.isArray(plain))
    throw new Error('A tool schema must be a JSON object schema.')
  return { ...plain, type: 'object' }
}
