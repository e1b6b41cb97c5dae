import assert from 'node:assert/strict'
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import type { components, paths } from '../../packages/client/src/schema.js'

/**
 * A typed test client over the OpenAPI document's paths (`packages/client/src/schema.ts`, made by
 * `npm run client:generate`), sending through `app.inject`: in-process, no port. A path, its
 * parameters, its query and its body are checked against the document at compile time, and
 * `expectOk` returns the documented `data` of the answer.
 */

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete'

/** The paths that document `method`. */
export type PathsWith<M extends Method> = {
  [P in keyof paths]: paths[P] extends { [K in M]: object } ? P : never
}[keyof paths]

type Operation<P extends keyof paths, M extends Method> = paths[P][M]

type PathParams<Op> = Op extends { parameters: { path: infer T } } ? T : undefined
type Query<Op> = Op extends { parameters: { query?: infer T } } ? T : undefined
type Body<Op> = Op extends { requestBody?: { content: { 'application/json': infer T } } } ? T : undefined
type Data<Op> = Op extends {
  responses: { 200: { content: { 'application/json': { data: infer T } } } }
}
  ? T
  : unknown

/** The error envelope's `error`: its code from the closed catalogue. */
export type ApiError = components['schemas']['Error']['error']
export type ErrorCode = ApiError['code']

declare const DATA: unique symbol
/** The inject response, marked with the `data` type its route documents. */
export type ApiResponse<T> = LightMyRequestResponse & { readonly [DATA]?: T }

/**
 * A body sent as it is, past the document's types: a refusal of the route's schema is what the test
 * checks (a missing field, a wrong type, a form body as a string). The path, its parameters and the
 * answer stay typed.
 */
export class Unchecked {
  constructor(readonly payload: InjectOptions['payload']) {}
}

/** Marks `payload` as deliberately outside the route's body schema. */
export const unchecked = (payload: InjectOptions['payload']) => new Unchecked(payload)

interface RequestOptions<Op> {
  query?: Query<Op>
  body?: Body<Op> | Unchecked
  headers?: Record<string, string>
}
type Init<Op> = RequestOptions<Op> &
  (PathParams<Op> extends undefined ? { params?: undefined } : { params: PathParams<Op> })
/** The options are optional where the path has no parameters. */
type InitArgs<Op> = PathParams<Op> extends undefined ? [init?: Init<Op>] : [init: Init<Op>]

type Call<M extends Method> = <P extends PathsWith<M>>(
  path: P,
  ...init: InitArgs<Operation<P, M>>
) => Promise<ApiResponse<Data<Operation<P, M>>>>

export interface Api {
  get: Call<'get'>
  post: Call<'post'>
  put: Call<'put'>
  patch: Call<'patch'>
  delete: Call<'delete'>
  /**
   * An undocumented request (an unknown path, a wrong method, a body the schema refuses, a form body
   * as a string): what the typed calls cannot express, on purpose. `T` names the `data` expected.
   */
  send<T = Record<string, unknown>>(
    method: InjectOptions['method'],
    url: string,
    payload?: InjectOptions['payload'],
  ): Promise<ApiResponse<T>>
}

/** What the typed calls pass on, once their types are checked. */
interface RawInit {
  params?: Record<string, unknown>
  query?: object
  body?: InjectOptions['payload'] | Unchecked
  headers?: Record<string, string>
}

/** A string body is a form. */
const formType = (payload: unknown): Record<string, string> =>
  typeof payload === 'string' ? { 'content-type': 'application/x-www-form-urlencoded' } : {}

/** Who calls: a bearer token, a tenant of the harness (`{ token }`), or nobody (public routes). */
export type Caller = string | { token: string } | undefined

function urlOf(path: string, params: Record<string, unknown> | undefined): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params?.[name]
    if (value === undefined) throw new Error(`no value for {${name}} in ${path}`)
    return encodeURIComponent(String(value))
  })
}

function queryOf(query: object | undefined): Record<string, string | string[]> | undefined {
  if (!query) return undefined
  const entries = Object.entries(query).filter(([, value]) => value !== undefined)
  return Object.fromEntries(
    entries.map(([name, value]) => [name, Array.isArray(value) ? value.map(String) : String(value)]),
  )
}

/** The typed client of `app` for `caller`. */
export function api(app: FastifyInstance, caller: Caller): Api {
  const token = typeof caller === 'string' ? caller : caller?.token
  const authorization: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {}
  const send: Api['send'] = (method, url, payload) =>
    app.inject({
      method,
      url,
      headers: { ...authorization, ...formType(payload) },
      ...(payload === undefined ? {} : { payload }),
    })
  const call =
    (method: InjectOptions['method']) =>
    (path: string, init: RawInit = {}) => {
      const query = queryOf(init.query)
      const payload = init.body instanceof Unchecked ? init.body.payload : init.body
      return app.inject({
        method,
        url: urlOf(path, init.params),
        headers: { ...authorization, ...formType(payload), ...init.headers },
        ...(query ? { query } : {}),
        ...(payload === undefined ? {} : { payload }),
      })
    }
  return {
    get: call('GET'),
    post: call('POST'),
    put: call('PUT'),
    patch: call('PATCH'),
    delete: call('DELETE'),
    send,
  }
}

/** Asserts a 200 with `success: true` and returns its `data`, typed as the route documents it. */
export function expectOk<T>(response: ApiResponse<T>): T {
  assert.equal(response.statusCode, 200, response.body)
  const body = response.json()
  assert.equal(body.success, true, response.body)
  return body.data
}

/** Asserts `status` with the error envelope of `code`, and returns the envelope's `error`. */
export function expectError(response: LightMyRequestResponse, status: number, code: ErrorCode): ApiError {
  assert.equal(response.statusCode, status, response.body)
  const body = response.json()
  assert.equal(body.success, false, response.body)
  assert.equal(body.error?.code, code, response.body)
  return body.error
}
