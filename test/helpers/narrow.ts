import assert from 'node:assert/strict'

/** A JSON object (not an array, not null). */
export type JsonRecord = Record<string, unknown>

export const isRecord = (value: unknown): value is JsonRecord =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** Asserts `value` is a JSON object and returns it. */
export function asRecord(value: unknown, what = 'the value'): JsonRecord {
  assert.ok(isRecord(value), `${what} is an object: ${JSON.stringify(value)}`)
  return value
}

/** Asserts `value` is an array of JSON objects and returns it. */
export function asRecords(value: unknown, what = 'the value'): JsonRecord[] {
  assert.ok(Array.isArray(value), `${what} is an array: ${JSON.stringify(value)}`)
  return value.map((element, i) => asRecord(element, `${what}[${i}]`))
}

/** Asserts `value` is defined (an array's first element, a found row) and returns it. */
export function present<T>(value: T | undefined | null, what = 'the value'): T {
  assert.ok(value !== undefined && value !== null, `${what} is present`)
  return value
}
