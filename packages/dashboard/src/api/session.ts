import { queryOptions, useQuery, useQueryClient } from '@tanstack/react-query'
import { useRouter } from '@tanstack/react-router'
import type { components } from '../../../client/src/schema.ts'
import { api, tokens } from './client.ts'
import { ApiFailure, dataOf } from './failure.ts'

export type Me = components['schemas']['SignedInPerson']

const ME = ['me'] as const

/**
 * Who is signed in: null when nobody is (`GET /auth/me`). Read once, then kept until the session changes:
 * the router's guards read it before every screen, the screens and the menu read it live.
 */
export const meQuery = queryOptions({
  queryKey: ME,
  queryFn: async (): Promise<Me | null> => {
    try {
      return dataOf(await api.GET('/auth/me'))
    } catch (error) {
      if (error instanceof ApiFailure && error.status === 401) return null
      throw error
    }
  },
  staleTime: Number.POSITIVE_INFINITY,
  retry: false,
})

export function useMe() {
  return useQuery(meQuery)
}

/** The signed-in person; only for screens under the router's signed-in guard. */
export function useSignedIn(): Me {
  const { data } = useMe()
  if (!data) throw new Error('useSignedIn outside a signed-in screen')
  return data
}

/**
 * The one-time password the person just signed in with, kept in this page's memory only until the
 * password-change screen takes it, so that it is not asked for twice. Gone on reload: then it is asked.
 */
let justTyped: string | undefined

export function takeOneTimePassword(): string | undefined {
  const taken = justTyped
  justTyped = undefined
  return taken
}

/** Session changes; after each the router runs its guards again, which send the page where it now belongs. */
export function useSessionActions() {
  const queries = useQueryClient()
  const router = useRouter()
  const reset = async (me: Me | null) => {
    tokens.forget()
    // Another person's data must not outlive the session; the session query itself stays observed.
    queries.removeQueries({ predicate: (query) => query.queryKey[0] !== ME[0] })
    queries.setQueryData(ME, me)
    await router.invalidate()
  }
  return {
    /** Signs in; resolves with who is signed in. */
    async signIn(email: string, password: string): Promise<Me> {
      const me = dataOf(await api.POST('/auth/sign-in', { body: { email, password } }))
      justTyped = me.password_change_required ? password : undefined
      await reset(me)
      return me
    },
    async signOut() {
      try {
        dataOf(await api.POST('/auth/sign-out', { body: {} }))
      } finally {
        await reset(null)
      }
    },
    async changePassword(current_password: string, new_password: string) {
      dataOf(await api.POST('/auth/password', { body: { current_password, new_password } }))
      await reset(dataOf(await api.GET('/auth/me')))
    },
    /** The session may have changed elsewhere (ended, another role): read it again, then guard again. */
    async recheck() {
      await queries.invalidateQueries({ queryKey: ME })
      await router.invalidate()
    },
  }
}
