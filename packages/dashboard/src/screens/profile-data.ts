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

/** Every profile write of the editor: it gets the ETag the profile was read at, to send as `If-Match`. */
export type Save = <T>(write: (ifMatch: string) => Promise<T>) => Promise<T>

/**
 * Saves based on the profile as read: each write sends `If-Match` with the ETag the profile was read
 * at, and the server refuses it (412, nothing written) when someone else changed the profile since;
 * that becomes a `ConflictError`. After the write the profile is read again, which moves the base to
 * our own change.
 */
export function useConditionalSave(organization: number, username: string, base: string): Save {
  const queries = useQueryClient()
  const reread = () => queries.invalidateQueries({ queryKey: profileKey(organization, username) })
  return async (write) => {
    try {
      const result = await write(base)
      await reread()
      return result
    } catch (error) {
      // After a conflict the profile stays as read until the person chooses to reload it (the banner).
      if (error instanceof ApiFailure && error.status === 412) throw new ConflictError()
      await reread()
      throw error
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
