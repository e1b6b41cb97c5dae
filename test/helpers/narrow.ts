import assert from 'node:assert/strict'
import type { Static, TSchema } from 'typebox'
import { Value } from 'typebox/value'

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

/**
 * Asserts that untyped JSON (a process's output, a raw HTTP answer) matches `schema`, unchanged (no
 * conversion, no defaults), and returns it typed by the schema.
 */
export function matching<const T extends TSchema>(schema: T, value: unknown, what = 'the value'): Static<T> {
  if (Value.Check(schema, value)) return value
  const errors = Value.Errors(schema, value).map((error) => `${error.instancePath} ${error.message}`)
  assert.fail(`${what} does not match its schema (${errors.join('; ')}): ${JSON.stringify(value)}`)
}
