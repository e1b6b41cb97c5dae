import { type Static, Type } from 'typebox'
import { CONTROLS, codePointsOf, scalarExcept, WHITESPACE } from '../validation/patterns.js'
import { CountryCode, Email, StateCode, Text } from '../validation/text.js'

/** Above this, an `event_date` is almost certainly unix milliseconds (10^11 s is the year 5138). */
export const LARGEST_EVENT_DATE = 99_999_999_999

export const DONOR_TYPES = ['corporate', 'government', 'ngo', 'not_for_profit', 'other'] as const
export const DONOR_FOCUSES = ['one_time_gift', 'recurring_gift', 'endowments', 'bequests', 'other'] as const

/** Excludes whitespace, control characters and lone surrogates anywhere in the URL. */
const URL_CHAR = scalarExcept([...WHITESPACE, ...CONTROLS])
const HOST_CHAR = scalarExcept([...WHITESPACE, ...CONTROLS, ...codePointsOf('/?#@:[]')])
const URL_PATTERN = `^(?:[Hh][Tt][Tt][Pp][Ss]?://(?:${HOST_CHAR}+|\\[[0-9A-Fa-f:.]+\\])(?::[0-9]{1,5})?(?:[/?#]${URL_CHAR}*)?)?$`

/** Optional fields accept "" for "not given": website forms send their empty fields too. */
const senderFields = {
  firstname: Text({ min: 1, max: 255, description: 'Sender first name' }),
  lastname: Type.Optional(Text({ max: 255, description: 'Sender last name' })),
  email: Email('Sender email address'),
  phone: Type.Optional(
    Text({
      max: 32,
      pattern: '^[0-9 +().-]*$',
      message: 'must be at most 32 digits, spaces and + ( ) . -',
      description: 'Sender phone number',
    }),
  ),
  website: Type.Optional(
    Type.String({
      maxLength: 2048,
      pattern: URL_PATTERN,
      description: 'Sender website: an http:// or https:// URL',
      'x-message': 'must be an http:// or https:// URL, such as https://example.org',
    }),
  ),
  organization: Type.Optional(Text({ max: 255, description: 'Sender company' })),
  message: Text({ min: 1, max: 5000, multiline: true, description: 'Sender message (line breaks allowed)' }),
  location_city: Type.Optional(Text({ max: 255, description: 'Sender city' })),
  location_state: Type.Optional(StateCode('Sender state/province')),
  location_country: Type.Optional(CountryCode('Sender country')),
  username: Type.String({
    minLength: 1,
    maxLength: 64,
    pattern: '^[a-z0-9-]*$',
    description: 'Username of the recipient expert',
    'x-message': 'must be a username: lowercase letters, digits and dashes',
  }),
}

const objectOptions = {
  additionalProperties: false,
  'x-subdivision': { country: 'location_country', state: 'location_state', requireCountry: true },
}

export const DonorInquiry = Type.Object(
  {
    ...senderFields,
    donor_type: Type.Enum([...DONOR_TYPES], { description: 'Kind of donor' }),
    donor_focus: Type.Enum([...DONOR_FOCUSES], { description: 'Kind of gift' }),
  },
  { ...objectOptions, title: 'DonorInquiry' },
)

export const EventInquiry = Type.Object(
  {
    ...senderFields,
    event_name: Text({ min: 1, max: 255, description: 'Event name' }),
    event_location: Text({ min: 1, max: 255, description: 'Event location' }),
    event_date: Type.Integer({
      minimum: 0,
      description: 'Event date: unix time in seconds (not milliseconds)',
      'x-message': 'must be an integer unix time in seconds, such as 1767225600',
      // A nested schema so that a too-large value gets its own message.
      allOf: [
        {
          maximum: LARGEST_EVENT_DATE,
          'x-message': 'looks like unix milliseconds: send unix seconds (divide by 1000)',
        },
      ],
    }),
    event_description: Text({
      min: 1,
      max: 5000,
      multiline: true,
      description: 'Event description (line breaks allowed)',
    }),
  },
  { ...objectOptions, title: 'EventInquiry' },
)

export type DonorInquiryInput = Static<typeof DonorInquiry>
export type EventInquiryInput = Static<typeof EventInquiry>
export type InquiryKind = 'donor' | 'event'
export type InquiryInput = (DonorInquiryInput & { kind: 'donor' }) | (EventInquiryInput & { kind: 'event' })

export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: '^[\\x21-\\x7e]+$',
      description:
        'Makes a retry safe: the same key with the same body within 24 hours returns the first response',
      'x-message': 'must be 1 to 255 visible ASCII characters, such as a UUID',
    }),
  ),
})

export const InquiryCreated = Type.Object(
  { id: Type.Integer({ description: 'Inquiry id' }) },
  { title: 'InquiryCreated' },
)
