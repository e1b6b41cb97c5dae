import { useQuery, useQueryClient } from '@tanstack/react-query'
import type { components } from '../../../client/src/schema.ts'
import { api, tokens } from './client.ts'
import { ApiFailure, dataOf } from './failure.ts'

export type Me = components['schemas']['SignedInPerson']

const ME = ['me'] as const

/** Who is signed in: null when nobody is (the session check on load, `GET /auth/me`). */
export function useMe() {
  return useQuery({
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
}

/** The signed-in person; only for screens shown after sign-in. */
export function useSignedIn(): Me {
  const { data } = useMe()
  if (!data) throw new Error('useSignedIn outside a signed-in screen')
  return data
}

export function useSessionActions() {
  const queries = useQueryClient()
  const reset = (me: Me | null) => {
    tokens.forget()
    // Another person's data must not outlive the session; the session query itself stays observed.
    queries.removeQueries({ predicate: (query) => query.queryKey[0] !== ME[0] })
    queries.setQueryData(ME, me)
  }
  return {
    /** Signs in; resolves with who is signed in. */
    async signIn(email: string, password: string): Promise<Me> {
      const me = dataOf(await api.POST('/auth/sign-in', { body: { email, password } }))
      reset(me)
      return me
    },
    async signOut() {
      try {
        dataOf(await api.POST('/auth/sign-out', { body: {} }))
      } finally {
        reset(null)
      }
    },
    async changePassword(current_password: string, new_password: string) {
      dataOf(await api.POST('/auth/password', { body: { current_password, new_password } }))
      reset(dataOf(await api.GET('/auth/me')))
    },
    /** The session ended elsewhere: check it again. */
    recheck: () => queries.invalidateQueries({ queryKey: ME }),
  }
}
