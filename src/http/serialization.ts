import fastJsonStringify from 'fast-json-stringify'
import type { FastifySerializerCompiler } from 'fastify'

type Serialize = (data: unknown) => string

/** Serializers by schema object: the error envelopes every route shares, a GET and its HEAD, compile once. */
const serializers = new WeakMap<object, Serialize>()

/** The fast-json-stringify serializer of `schema`, compiled at its first use and shared from then on. */
export function serializerOf(schema: object): Serialize {
  let serialize = serializers.get(schema)
  if (!serialize) {
    serialize = fastJsonStringify(schema)
    serializers.set(schema, serialize)
  }
  return serialize
}

/**
 * Fastify's response serializer compiler, as Fastify's default (fast-json-stringify), except that a
 * response schema is compiled by the first response that uses it rather than at start-up: the
 * serializers of every route and status held tens of MiB of heap in a process that may never send most
 * of them (docs/performance.md, "Idle memory").
 */
export const serializerCompiler: FastifySerializerCompiler<object> = ({ schema }) => {
  let serialize: Serialize | undefined
  return (data) => {
    serialize ??= serializerOf(schema)
    return serialize(data)
  }
}
