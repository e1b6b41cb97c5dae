import { Writable } from 'node:stream'
import { type Static, type TSchema, Type } from 'typebox'
import { Value } from 'typebox/value'

/**
 * Checks that tests use instead of type assertions: each one fails the test when the value is not what
 * the test expects, so the type it returns is the one the value really has.
 */

/** `value`, which must be there: an array element, a map entry, a found row. */
export function present<T>(value: T | null | undefined, what = 'the value'): T {
  if (value === undefined || value === null) throw new Error(`${what} is missing`)
  return value
}

/** `value` (parsed JSON, a process's output, a reply of another server) checked against `schema`. */
export function parsed<S extends TSchema>(schema: S, value: unknown, what = 'the value'): Static<S> {
  if (Value.Check(schema, value)) return value
  const errors = Value.Errors(schema, value).map((error) => `${error.instancePath || '/'} ${error.message}`)
  throw new Error(`${what} has an unexpected shape (${errors.join('; ')}): ${JSON.stringify(value)}`)
}

const Success = Type.Object({ success: Type.Literal(true), data: Type.Unknown() })

/** The `data` of a success envelope (an inject response's body), checked against `schema`. */
export function dataIn<S extends TSchema>(schema: S, response: { json(): unknown }): Static<S> {
  return parsed(schema, parsed(Success, response.json()).data)
}

/** The `id` of the record a success envelope answers with. */
export function idIn(response: { json(): unknown }): number {
  return dataIn(Type.Object({ id: Type.Integer() }), response).id
}

/** A JSON object (not an array, not null). */
export type JsonRecord = Record<string, unknown>

/** Whether `value` is a plain object, for reading JSON of no fixed shape. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** `value`, which must be a plain object. */
export function record(value: unknown, what = 'the value'): Record<string, unknown> {
  if (!isRecord(value)) throw new Error(`${what} is not an object: ${JSON.stringify(value)}`)
  return value
}

/** `value`, which must be an array of plain objects. */
export function records(value: unknown, what = 'the value'): Record<string, unknown>[] {
  if (!Array.isArray(value)) throw new Error(`${what} is not an array: ${JSON.stringify(value)}`)
  return value.map((element, i) => record(element, `${what}[${i}]`))
}

/** A log destination that drops every line. */
export function discardingStream(): Writable {
  return new Writable({ write: (_chunk, _encoding, done) => done() })
}

/** A log destination that keeps each line it is given in `lines` (synchronously, as pino writes). */
export function collectingStream(lines: string[]): Writable {
  return new Writable({
    decodeStrings: false,
    write: (chunk, _encoding, done) => {
      lines.push(String(chunk))
      done()
    },
  })
}
