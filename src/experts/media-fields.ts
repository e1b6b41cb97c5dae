import { Type } from 'typebox'
import { LARGEST_UNIX_SECONDS } from '../validation/fields.js'
import { Flag, Text } from '../validation/text.js'

/**
 * The account fields of the media desk (CONTRACT §22) and of the media kit: availability for interviews,
 * the languages and places an interview can be held in, the expert's time zone, and how to say and
 * refer to the expert's name. Every one is optional on create and update; the public sees them all.
 */

/** Most interview languages one expert lists. */
export const MAX_INTERVIEW_LANGUAGES = 20

export const mediaFields = {
  media_available: Type.Optional(
    Flag({
      title: 'Available for media',
      description:
        '1: available to journalists for interviews, until the end of availability when one is set',
    }),
  ),
  media_available_until: Type.Optional(
    Type.Union(
      [
        Type.Integer({
          minimum: 0,
          maximum: LARGEST_UNIX_SECONDS,
          title: 'Available until',
          description:
            'Available until: unix time in seconds; once it has passed, media_available becomes 0 (within a minute). null or "" for no end',
          'x-input': 'datetime',
          'x-hint':
            'Date and time in UTC. From then on the profile no longer shows you as available; empty: no end',
          'x-message': 'must be an integer unix time in seconds, such as 1767225600, in the future',
        }),
        Type.Null(),
        Type.Literal(''),
      ],
      { 'x-message': 'must be an integer unix time in seconds, or null for no end' },
    ),
  ),
  interview_languages: Type.Optional(
    Type.Array(
      Type.String({
        format: 'bcp47',
        maxLength: 35,
        'x-message': 'must be BCP 47 language tags, such as en, fr-CA or zh-Hant',
      }),
      {
        maxItems: MAX_INTERVIEW_LANGUAGES,
        title: 'Interview languages',
        description:
          'Interview languages: BCP 47 tags such as en, fr-CA or zh-Hant, stored in canonical form; the list is replaced as a whole ([] clears it)',
        'x-input': 'tags',
        'x-hint': 'Language codes separated by commas, such as en, fr-CA or zh-Hant',
      },
    ),
  ),
  remote_ready: Type.Optional(
    Flag({ title: 'Remote interviews', description: '1: can give interviews remotely (video or phone)' }),
  ),
  studio_ready: Type.Optional(
    Flag({ title: 'Studio interviews', description: '1: can come to a studio for interviews' }),
  ),
  time_zone: Type.Optional(
    Type.String({
      format: 'iana-time-zone',
      maxLength: 64,
      title: 'Time zone',
      description: 'Time zone: an IANA name such as Europe/Paris or America/Toronto ("" clears it)',
      'x-input': 'time-zone',
      'x-hint': 'Where you are, so that journalists can tell your local time',
      'x-message': 'must be an IANA time zone name, such as Europe/Paris or America/Toronto',
    }),
  ),
  pronunciation: Type.Optional(
    Text({
      max: 255,
      description: {
        title: 'Pronunciation',
        description:
          'Pronunciation: how to say the name, as a journalist would read it aloud (such as "AH-dah oh-KAH-for")',
      },
    }),
  ),
  pronouns: Type.Optional(
    Text({
      max: 64,
      description: { title: 'Pronouns', description: 'Pronouns, such as she/her or they/them' },
    }),
  ),
}
