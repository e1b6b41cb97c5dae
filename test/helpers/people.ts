import type { InjectOptions } from 'fastify'
import { cliWriteContext } from '../../src/audit/write-context.js'
import { addPerson } from '../../src/people/service.js'
import type { TestContext } from './harness.js'

/** The host the dashboard is served from in these tests, and the Origin its requests carry. */
export const HOST = 'experts.example.edu'
export const ORIGIN = `http://${HOST}`

let counter = 0

/** A password that passes the policy. */
export const PASSWORD = 'violet-harbour-compass-42'

/** Adds a person with a password to `orgId`; returns the email. */
export async function addPersonWithPassword(
  ctx: TestContext,
  orgId: number,
  role: string,
  options: { expert?: string; password?: string } = {},
): Promise<{ id: number; email: string; password: string }> {
  const email = `person${++counter}.${Math.random().toString(36).slice(2, 7)}@example.edu`
  const password = options.password ?? PASSWORD
  const added = await addPerson(
    cliWriteContext(ctx.testDatabase.database.db, orgId, 'people add', ctx.clock.now()),
    { email, role, expert: options.expert, password },
  )
  return { id: added.person.id, email, password }
}

/** A same-origin JSON request of the dashboard, with the session cookie when given. */
export function dashboard(
  method: 'GET' | 'POST',
  url: string,
  options: { cookie?: string; payload?: object; headers?: Record<string, string> } = {},
): InjectOptions & { headers: Record<string, string> } {
  return {
    method,
    url,
    headers: {
      host: HOST,
      ...(method === 'POST' ? { origin: ORIGIN, 'content-type': 'application/json' } : {}),
      ...(options.cookie ? { cookie: `expertdir_session=${options.cookie}` } : {}),
      ...options.headers,
    },
    ...(method === 'POST' ? { payload: JSON.stringify(options.payload ?? {}) } : {}),
  }
}

/** Signs in; returns the session cookie's value. */
export async function signIn(ctx: TestContext, email: string, password = PASSWORD): Promise<string> {
  const response = await ctx.inject(dashboard('POST', '/auth/sign-in', { payload: { email, password } }))
  if (response.statusCode !== 200) throw new Error(`sign-in failed: ${response.body}`)
  const cookie = response.cookies.find((c) => c.name === 'expertdir_session')
  if (!cookie) throw new Error('no session cookie')
  return cookie.value
}

/** Mints a dashboard bearer token for the session. */
export async function dashboardToken(ctx: TestContext, cookie: string): Promise<string> {
  const response = await ctx.inject(dashboard('POST', '/auth/token', { cookie }))
  if (response.statusCode !== 200) throw new Error(`token failed: ${response.body}`)
  return response.json().data.access_token
}

/** Adds a person of `role` and returns a live dashboard token of theirs. */
export async function personToken(
  ctx: TestContext,
  orgId: number,
  role: string,
  options: { expert?: string } = {},
): Promise<{ id: number; email: string; token: string; cookie: string }> {
  const person = await addPersonWithPassword(ctx, orgId, role, options)
  const cookie = await signIn(ctx, person.email)
  return { id: person.id, email: person.email, cookie, token: await dashboardToken(ctx, cookie) }
}
