import { type Static, Type } from 'typebox'
import { SCHEDULE_FIELDS } from '../validation/schedule.js'
import { CountryCode, Email, Flag, StateCode, Text } from '../validation/text.js'
import { mediaFields } from './media-fields.js'

const SUBDIVISION = { country: 'location_country', state: 'location_state' }

/** Optional text fields accept "" to mean "not set" (the only way a form body can clear a field). */
const Policy = (identifier: string) =>
  Type.Optional(
    Type.Union(
      [
        Type.Literal('auto_claim', { title: 'Claim automatically' }),
        Type.Literal('suggest', { title: 'Suggest for review' }),
        Type.Literal('auto_reject', { title: 'Reject automatically' }),
        Type.Literal('ignore', { title: 'Ignore' }),
      ],
      {
        title: `${identifier} policy`,
        description: `What a work found through the ${identifier} becomes: claimed, suggested (the default), rejected, or not looked up at all`,
        'x-message': 'must be auto_claim, suggest, auto_reject or ignore',
      },
    ),
  )

/** The scholarly identifiers the works importer looks publications up by (CONTRACT §19, docs/works.md). */
const identifierFields = {
  orcid: Type.Optional(
    Type.String({
      format: 'orcid',
      maxLength: 64,
      title: 'ORCID iD',
      description:
        'ORCID iD, as 0000-0002-1825-0097 or https://orcid.org/0000-0002-1825-0097, checked with its check digit; stored as 0000-0000-0000-000X ("" clears it)',
      'x-message': 'must be an ORCID iD such as 0000-0002-1825-0097 with a correct check digit',
    }),
  ),
  orcid_policy: Policy('ORCID iD'),
  openalex_id: Type.Optional(
    Type.String({
      pattern: '^((https://openalex\\.org/)?[Aa][1-9][0-9]{0,15})?$',
      title: 'OpenAlex author id',
      description: 'OpenAlex author id, as A5023888391 ("" clears it)',
      'x-message': 'must be an OpenAlex author id such as A5023888391',
    }),
  ),
  openalex_policy: Policy('OpenAlex id'),
  scopus_id: Type.Optional(
    Type.String({
      pattern: '^([1-9][0-9]{0,15})?$',
      title: 'Scopus author id',
      description: 'Scopus author id, digits only ("" clears it)',
      'x-message': 'must be a Scopus author id: digits only',
    }),
  ),
  scopus_policy: Policy('Scopus id'),
}

const optionalFields = {
  ...identifierFields,
  department: Type.Optional(Text({ max: 255, description: 'Department' })),
  phone_number: Type.Optional(
    Text({
      max: 32,
      pattern: '^[0-9 +().-]*$',
      message: 'must be at most 32 digits, spaces and + ( ) . -',
      description: 'Phone number',
    }),
  ),
  phone_number_extension: Type.Optional(
    Text({
      max: 16,
      pattern: '^[0-9]*$',
      message: 'must be at most 16 digits',
      description: 'Phone extension',
    }),
  ),
  location_city: Type.Optional(Text({ max: 255, description: 'City' })),
  location_state: Type.Optional(StateCode('State/province')),
  location_country: Type.Optional(CountryCode('Country')),
  location_postal: Type.Optional(Text({ max: 16, description: 'ZIP/postal code' })),
  location_address: Type.Optional(Text({ max: 255, description: 'Address' })),
  location_building: Type.Optional(Text({ max: 255, description: 'Building' })),
  location_room: Type.Optional(Text({ max: 255, description: 'Room number' })),
  assistant_email: Type.Optional(
    Type.Union([Email("The expert's assistant's email address"), Type.Literal('')], {
      description:
        'Email address of the expert\'s assistant, emailed about inquiries when the notification settings say so ("" for none)',
      'x-message': 'must be a valid email address, or "" for none',
    }),
  ),
  ...mediaFields,
}

const requiredFields = {
  firstname: Text({ min: 1, max: 255, description: 'First name' }),
  lastname: Text({ min: 1, max: 255, description: 'Last name' }),
  job_title: Text({ min: 1, max: 255, description: 'Job title' }),
  email: Email({
    title: 'Email address',
    description: 'Email address, unique within the organization (case-insensitive)',
  }),
  company: Text({ min: 1, max: 255, description: 'Company' }),
}

const notOnCreate = (description: string) =>
  Type.Optional(Type.Never({ description, 'x-message': 'is not accepted on create; set it with an update' }))

export const ExpertCreate = Type.Object(
  {
    ...requiredFields,
    ...optionalFields,
    is_published: notOnCreate('Not accepted on create: new experts start unpublished'),
    is_private: notOnCreate('Not accepted on create: new experts start public'),
    ...SCHEDULE_FIELDS,
  },
  {
    additionalProperties: false,
    title: 'ExpertCreate',
    'x-subdivision': { ...SUBDIVISION, requireCountry: true },
  },
)

/** A username as generated (CONTRACT §4): the rules a rename must meet. */
export const Username = Type.String({
  minLength: 3,
  maxLength: 64,
  pattern: '^[a-z0-9]+(-[a-z0-9]+)*$',
  title: 'Username',
  description:
    'A new username (a rename): 3 to 64 lower-case letters a-z, digits and single hyphens between them; the old one answers 308 to the new one from then on',
  'x-hint':
    "The name in the profile's address: 3 to 64 lower-case letters a-z, digits and single hyphens between them. Links to the old address keep working",
  'x-message': 'must be 3 to 64 lower-case letters a-z, digits and single hyphens, not at either end',
})

export const ExpertUpdate = Type.Object(
  {
    username: Type.Optional(Username),
    ...Type.Partial(Type.Object(requiredFields)).properties,
    ...optionalFields,
    is_published: Type.Optional(Flag('Published flag')),
    is_private: Type.Optional(Flag('Private flag')),
    ...SCHEDULE_FIELDS,
  },
  {
    additionalProperties: false,
    minProperties: 1,
    title: 'ExpertUpdate',
    'x-message': 'must contain at least one field to update',
    'x-subdivision': SUBDIVISION,
  },
)

export type ExpertCreateInput = Static<typeof ExpertCreate>
export type ExpertUpdateInput = Static<typeof ExpertUpdate>

export const ExpertCreated = Type.Object(
  { username: Type.String(), inserted: Type.Boolean() },
  { title: 'ExpertCreated' },
)
export const ExpertUpdated = Type.Object(
  { username: Type.String(), updated: Type.Boolean() },
  { title: 'ExpertUpdated' },
)
export const ExpertDeleted = Type.Object(
  { deleted: Type.Boolean(), username: Type.String() },
  { title: 'ExpertDeleted' },
)

/** The request header of every profile write: the ETag the change is based on (src/profiles/preconditions.ts). */
export const IfMatchHeaders = Type.Object({
  'if-match': Type.Optional(
    Type.String({
      description:
        'The `ETag` of the profile read (`GET .../expert/{username}`, with this token) the change is based on; ' +
        'when the profile has changed since, nothing is written and the answer is 412 `precondition_failed`. ' +
        '`*` or no header: no check.',
    }),
  ),
})
