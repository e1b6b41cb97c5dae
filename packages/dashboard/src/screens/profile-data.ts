import { useQuery, useQueryClient } from '@tanstack/react-query'
import type { components } from '../../../client/src/schema.ts'
import { api } from '../api/client.ts'
import { ApiFailure, dataOf } from '../api/failure.ts'

export type Profile = components['schemas']['Profile']

/** A profile as read, with the ETag it was read at (the base of the conflict check). */
export interface LoadedProfile {
  profile: Profile
  etag: string
}

export const profileKey = (organization: number, username: string) => ['profile', organization, username]

export function useProfile(organization: number, username: string) {
  return useQuery({
    queryKey: profileKey(organization, username),
    queryFn: async (): Promise<LoadedProfile> => {
      const result = await api.GET('/v2/organization/{corporation}/expert/{username}', {
        params: { path: { corporation: organization, username } },
        cache: 'no-store',
      })
      return { profile: dataOf(result), etag: result.response.headers.get('etag') ?? '' }
    },
    staleTime: 0,
  })
}

export class ConflictError extends ApiFailure {
  constructor() {
    super(
      'Someone else changed this profile after you opened it. Reload it to see their changes, then make yours again.',
      409,
      'edit_conflict',
    )
  }
}

/**
 * Saves with a check first: the profile must still be at the ETag it was read at (the API has no
 * If-Match, so the dashboard compares before it writes: `If-None-Match` answers 304 while nobody else
 * has written). After the write the profile is read again, which moves the base to our own change.
 */
export function useGuardedSave(organization: number, username: string, base: string) {
  const queries = useQueryClient()
  return async <T>(write: () => Promise<T>): Promise<T> => {
    const check = await api.GET('/v2/organization/{corporation}/expert/{username}', {
      params: { path: { corporation: organization, username } },
      headers: { 'if-none-match': base },
      cache: 'no-store',
    })
    if (check.response.status !== 304) throw new ConflictError()
    try {
      return await write()
    } finally {
      await queries.invalidateQueries({ queryKey: profileKey(organization, username) })
    }
  }
}

/** What a published profile should have and this one lacks. */
export function missingForPublishing(profile: Profile): string[] {
  const missing: string[] = []
  if (!profile.avatar.m.url) missing.push('a photo')
  if (!profile.tagline[0]?.tagline) missing.push('a tagline')
  if (!profile.biography[0]?.biography) missing.push('a biography')
  if (profile.topic.length === 0) missing.push('at least one topic')
  return missing
}
