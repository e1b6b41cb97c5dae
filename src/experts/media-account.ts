import { type Static, Type } from 'typebox'
import type { ExpertRow } from '../db/schema.js'
import { toSeconds } from '../time.js'
import { interviewLanguagesOf } from '../validation/media.js'

/**
 * The media desk's fields of the account element (CONTRACT §22), as every reader sees them: availability
 * is public information meant for journalists. Reads show what is stored; once `media_available_until`
 * has passed, the expiry pass (src/experts/media-expiry.ts) sets `media_available` to 0 as a write, so
 * that every kept read and search follows (nothing kept expires by time).
 */
export const mediaAccountFields = {
  media_available: Type.Integer({
    enum: [0, 1],
    description: '1: available to journalists for interviews; 0 once media_available_until has passed',
  }),
  media_available_until: Type.Union([Type.Integer(), Type.Null()], {
    description: 'End of the availability (unix seconds), or null for none',
  }),
  interview_languages: Type.Array(Type.String(), { description: 'BCP 47 tags, canonical form' }),
  remote_ready: Type.Integer({ enum: [0, 1], description: '1: interviews remotely' }),
  studio_ready: Type.Integer({ enum: [0, 1], description: '1: interviews in a studio' }),
  time_zone: Type.Union([Type.String(), Type.Null()], { description: 'IANA time zone name' }),
  pronunciation: Type.Union([Type.String(), Type.Null()], { description: 'How to say the name' }),
  pronouns: Type.Union([Type.String(), Type.Null()]),
}

type MediaAccount = Static<ReturnType<typeof Type.Object<typeof mediaAccountFields>>>

export function mediaAccountOf(expert: ExpertRow): MediaAccount {
  return {
    media_available: expert.media_available,
    media_available_until:
      expert.media_available_until === null ? null : toSeconds(Number(expert.media_available_until)),
    interview_languages: interviewLanguagesOf(expert.interview_languages),
    remote_ready: expert.remote_ready,
    studio_ready: expert.studio_ready,
    time_zone: expert.time_zone,
    pronunciation: expert.pronunciation,
    pronouns: expert.pronouns,
  }
}
