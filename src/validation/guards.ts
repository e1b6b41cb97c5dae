/** A JSON object (not null, not an array): what a parsed body, a stored element or a schema is. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The value as a list of strings: a list's string members, or none. */
export function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []
}

/** A property of a thrown value (`code` of a Node.js, driver or SMTP error, ...), when it has one. */
export function propertyOf(error: unknown, key: PropertyKey): unknown {
  return typeof error === 'object' && error !== null && key in error ? Reflect.get(error, key) : undefined
}
