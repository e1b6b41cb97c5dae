import type { QueryClient } from '@tanstack/react-query'
import { type ParsedLocation, redirect } from '@tanstack/react-router'
import { type Me, meQuery } from './api/session.ts'
import { homeOf, reaches } from './roles.ts'

/** What every route's guard is given. */
export interface RouterContext {
  queries: QueryClient
}

/** The dashboard's addresses start here (the router's `basepath`). */
export const BASEPATH = '/admin'

/** Where to go once signed in (or once the password is changed): a path of the dashboard. */
export interface ReturnSearch {
  redirect?: string
}

/** The sign-in page's address: where to return, and what a link or the single sign-on told it. */
export interface SignInSearch extends ReturnSearch {
  /** `?organization=N`: that organization's single sign-on buttons. */
  organization?: number
  /** `?sso=check-email`: a first single sign-on into an existing account waits for its emailed link. */
  sso?: 'check-email'
}

/** Only a path of the dashboard itself is a place to return to, never another site. */
function returnPathOf(value: unknown): string | undefined {
  if (typeof value !== 'string' || !value.startsWith('/')) return undefined
  return value.startsWith('//') || value.startsWith('/\\') ? undefined : value
}

export const returnSearchOf = (search: Record<string, unknown>): ReturnSearch => {
  const path = returnPathOf(search.redirect)
  return path ? { redirect: path } : {}
}

export function signInSearchOf(search: Record<string, unknown>): SignInSearch {
  const organization = Number(search.organization)
  return {
    ...returnSearchOf(search),
    ...(Number.isInteger(organization) && organization > 0 ? { organization } : {}),
    ...(search.sso === 'check-email' ? { sso: 'check-email' } : {}),
  }
}

/** The way back to `location` after a detour (the start page needs none). */
const returnTo = (location: ParsedLocation): ReturnSearch =>
  location.pathname === '/' && !location.searchStr ? {} : { redirect: location.href }

/** The sign-in page keeps what the address told it for the sign-in itself. */
function signInSearchFrom(location: ParsedLocation): SignInSearch {
  const told = new URLSearchParams(location.searchStr)
  return signInSearchOf({
    ...returnTo(location),
    organization: told.get('organization'),
    sso: told.get('sso'),
  })
}

const back = (search: ReturnSearch) =>
  redirect({ href: `${BASEPATH}${search.redirect ?? '/'}`, replace: true })

/**
 * The signed-in screens' guard: nobody signed in goes to the sign-in page, a one-time password must be
 * replaced first, and an expert person stays on its own profile and inquiries.
 */
export async function signedInPerson(queries: QueryClient, location: ParsedLocation): Promise<Me> {
  const me = await queries.ensureQueryData(meQuery)
  if (!me) throw redirect({ to: '/sign-in', search: signInSearchFrom(location), replace: true })
  if (me.password_change_required)
    throw redirect({ to: '/password', search: returnTo(location), replace: true })
  if (!reaches(me, location.pathname)) throw redirect({ to: homeOf(me), replace: true })
  return me
}

/** A screen of some people only (its menu entry is theirs too): anyone else goes to their start. */
export function refuseUnless(rule: (me: Me) => boolean, me: Me): void {
  if (!rule(me)) throw redirect({ to: homeOf(me), replace: true })
}

export function toStart(me: Me): never {
  throw redirect({ to: homeOf(me), replace: true })
}

/** The sign-in page is for nobody signed in: once someone is, they go where they were going. */
export async function leaveSignIn(queries: QueryClient, search: ReturnSearch): Promise<void> {
  if (await queries.ensureQueryData(meQuery)) throw back(search)
}

/** The forced password change: for a signed-in person who must change it, and only until it is changed. */
export async function requirePasswordChange(queries: QueryClient, search: ReturnSearch): Promise<void> {
  const me = await queries.ensureQueryData(meQuery)
  if (!me) throw redirect({ to: '/sign-in', search, replace: true })
  if (!me.password_change_required) throw back(search)
}
