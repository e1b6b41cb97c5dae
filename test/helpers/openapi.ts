/** A parsed JSON document navigated freely by tests (a wrong path fails the assertion that uses it). */
// biome-ignore lint/suspicious/noExplicitAny: test navigation of parsed JSON
export type JsonNode = any

/** Follows `#/components/...` references in an OpenAPI document until a schema without `$ref`. */
export function deref(document: JsonNode, schema: JsonNode): JsonNode {
  let current = schema
  while (typeof current?.$ref === 'string') {
    const path: string[] = current.$ref.replace(/^#\//, '').split('/')
    current = path.reduce((node, key) => node?.[key], document)
  }
  return current
}
