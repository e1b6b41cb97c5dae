import { isDeepStrictEqual } from 'node:util'
import { isObject } from '../validation/guards.js'

/**
 * Post-processing of the generated OpenAPI document, so that code generators and linters get named
 * types, the headers we send and the responses any route can give. Pure functions over plain JSON.
 */

type Json = Record<string, unknown>

/** Keywords whose value is a schema, a list of schemas, or a map of names to schemas. */
const SUBSCHEMA = ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames']
const SUBSCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems']
const SUBSCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'dependentSchemas']

/** A component name from a schema title: letters, digits, `.`, `_`, `-` (OpenAPI's component key rule). */
export function componentName(title: string): string {
  return title.replace(/[^A-Za-z0-9._-]+/g, '')
}

/**
 * Replaces every object schema that carries a `title` by a `$ref` to `#/components/schemas/<title>`,
 * innermost first. Two different objects with one title are a programming error: they would silently
 * merge. The title of a field or of a named choice is its label and stays where it is.
 */
export function hoistTitledSchemas(document: Json): void {
  const schemas = objectAt(objectAt(document, 'components'), 'schemas')

  const visit = (schema: unknown): unknown => {
    if (!isObject(schema) || typeof schema.$ref === 'string') return schema
    for (const key of SUBSCHEMA) if (isObject(schema[key])) schema[key] = visit(schema[key])
    for (const key of SUBSCHEMA_LISTS) {
      const list = schema[key]
      if (Array.isArray(list)) schema[key] = list.map(visit)
    }
    for (const key of SUBSCHEMA_MAPS) {
      const map = schema[key]
      if (isObject(map)) for (const name of Object.keys(map)) map[name] = visit(map[name])
    }
    if (typeof schema.title !== 'string' || schema.type !== 'object') return schema
    const name = componentName(schema.title)
    const existing = schemas[name]
    if (existing !== undefined && !isDeepStrictEqual(existing, schema)) {
      throw new Error(`OpenAPI: two different schemas are titled "${schema.title}"; give one another title`)
    }
    schemas[name] = schema
    return { $ref: `#/components/schemas/${name}` }
  }

  for (const name of Object.keys(schemas)) {
    const schema = schemas[name]
    if (!isObject(schema)) continue
    // A component's own title names it already: visit only what is inside it.
    const { title, ...rest } = schema
    // Without its title the component is never replaced by a $ref: it stays an object.
    const visited = visit(rest)
    schemas[name] = title === undefined || !isObject(visited) ? visited : { title, ...visited }
  }
  forEachOperation(document, (operation) => {
    for (const parameter of asList(operation.parameters)) {
      if (isObject(parameter)) parameter.schema = visit(parameter.schema)
    }
    const body = operation.requestBody
    if (isObject(body)) visitContent(body.content, visit)
    for (const response of Object.values(asMap(operation.responses))) {
      if (isObject(response)) visitContent(response.content, visit)
    }
  })
}

function visitContent(content: unknown, visit: (schema: unknown) => unknown): void {
  for (const media of Object.values(asMap(content))) {
    if (isObject(media) && media.schema !== undefined) media.schema = visit(media.schema)
  }
}

/** The object under `key`, created when missing. */
export function objectAt(parent: Json, key: string): Json {
  const value = parent[key]
  if (isObject(value)) return value
  const created: Json = {}
  parent[key] = created
  return created
}

const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : [])
const asMap = (value: unknown): Json => (isObject(value) ? value : {})

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']

export function forEachOperation(
  document: Json,
  callback: (operation: Json, method: string, path: string) => void,
): void {
  for (const [path, item] of Object.entries(asMap(document.paths))) {
    for (const method of HTTP_METHODS) {
      const operation = asMap(item)[method]
      if (isObject(operation)) callback(operation, method, path)
    }
  }
}
