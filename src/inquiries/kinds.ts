import { type TSchema, Type } from 'typebox'
import { UnixSeconds } from '../validation/fields.js'
import { Text } from '../validation/text.js'

/**
 * The nine inquiry kinds and the fields each adds to the common sender fields (CONTRACT §6, §11).
 * This table is the one description of a kind: its request schema, its stored fields, the labels of
 * the email and webhook payload and the inbox all come from it.
 */

/**
 * A field a kind adds: `label` is how emails, the webhook's `details` and the dashboard name it;
 * `choices` maps each allowed value to its readable label.
 */
export interface KindField {
  label: string
  schema: TSchema
  optional?: boolean
  choices?: Readonly<Record<string, string>>
  /** A unix time in seconds: shown as a date in emails and the dashboard. */
  time?: boolean
  /** Text with line breaks. */
  multiline?: boolean
}

export interface KindSpec {
  /** Readable name: "New <label> inquiry". */
  label: string
  /** The operation that creates one: `POST .../inquiry/<kind>`. */
  summary: string
  /** May be sent to the organization itself (no `username`): it goes to the inquiry desk (§17). */
  desk?: boolean
  fields: Readonly<Record<string, KindField>>
}

function choice(label: string, description: string, choices: Record<string, string>): KindField {
  return { label, choices, schema: Type.Enum(Object.keys(choices), { description }) }
}

function line(label: string, description: string): KindField {
  return { label, schema: Text({ min: 1, max: 255, description }) }
}

function paragraph(label: string, description: string): KindField {
  return { label, multiline: true, schema: Text({ min: 1, max: 5000, multiline: true, description }) }
}

/** An inquiry's time: a unix time in seconds from 1970 on. */
export const InquiryTime = (description: string) => UnixSeconds(description, 0)

function time(label: string, description: string, optional = false): KindField {
  return { label, time: true, optional, schema: InquiryTime(description) }
}

const ORGANIZATION_TYPES = {
  corporate: 'Corporate',
  government: 'Government',
  ngo: 'NGO',
  not_for_profit: 'Not for profit',
  other: 'Other',
}

/** The labels of the sender's fields, which every kind has (the kinds' own are in their table below). */
export const SENDER_FIELD_LABELS = {
  firstname: 'First name',
  lastname: 'Last name',
  email: 'Email',
  phone: 'Phone',
  website: 'Website',
  organization: 'Organization',
  message: 'Message',
  location_city: 'City',
  location_state: 'State or province',
  location_country: 'Country',
  username: 'Expert',
} as const

export const INQUIRY_KINDS = {
  general: {
    label: 'general',
    summary: "Send a general inquiry to an expert, or without username to the organization's inquiry desk",
    desk: true,
    fields: {},
  },
  donor: {
    label: 'donor',
    summary: 'Send a donor inquiry to an expert',
    fields: {
      donor_type: choice('Donor type', 'Kind of donor', ORGANIZATION_TYPES),
      donor_focus: choice('Donor focus', 'Kind of gift', {
        one_time_gift: 'One-time gift',
        recurring_gift: 'Recurring gift',
        endowments: 'Endowments',
        bequests: 'Bequests',
        other: 'Other',
      }),
    },
  },
  event: {
    label: 'event',
    summary: 'Send an event (speaking) inquiry to an expert',
    fields: {
      event_name: line('Event', 'Event name'),
      event_location: line('Event location', 'Event location'),
      event_date: time('Event date', 'Event date'),
      event_description: paragraph('Event description', 'Event description (line breaks allowed)'),
    },
  },
  media: {
    label: 'media',
    summary:
      "Send a media request (from a journalist) to an expert, or without username to the organization's inquiry desk",
    desk: true,
    fields: {
      media_position: choice('Position', "The sender's position", {
        reporter: 'Reporter',
        editor: 'Editor',
        news_director: 'News director',
        researcher: 'Researcher',
        other: 'Other',
      }),
      media_type: choice('Media type', 'Kind of outlet', {
        print: 'Print',
        online: 'Online',
        tv: 'TV',
        radio: 'Radio',
      }),
      media_deadline: time('Deadline', 'Deadline of the story'),
    },
  },
  partnership: {
    label: 'partnership',
    summary: 'Send a partnership inquiry to an expert',
    fields: {
      partner_organization_type: choice(
        'Organization type',
        "Kind of the sender's organization",
        ORGANIZATION_TYPES,
      ),
      partner_focus: choice('Partnership focus', 'What the partnership is about', {
        business_development: 'Business development',
        corporate: 'Corporate',
        fundraising: 'Fundraising',
        licensing: 'Licensing',
        research: 'Research',
        sponsorship: 'Sponsorship',
        technology: 'Technology',
        other: 'Other',
      }),
    },
  },
  admission: {
    label: 'admission',
    summary: 'Send an admission inquiry (from a prospective student) to an expert',
    fields: {
      admission_type: choice('Admission type', 'Level of study', {
        undergraduate: 'Undergraduate',
        graduate: 'Graduate',
      }),
      admission_program_name: line('Program', 'Name of the program'),
      admission_faculty: line('Faculty', 'Faculty of the program'),
    },
  },
  research: {
    label: 'research',
    summary: 'Send a research inquiry to an expert',
    fields: {
      research_area: line('Research area', 'Area of research'),
      research_stage_in_process: choice('Stage', 'Where the research stands', {
        collaboration: 'Collaboration',
        funding: 'Funding',
        partnership: 'Partnership',
        other: 'Other',
      }),
      research_deadline: time('Deadline', 'Deadline, if any', true),
    },
  },
  business: {
    label: 'business',
    summary: 'Send a business inquiry to an expert',
    fields: {
      business_opportunity_type: choice('Opportunity', 'Kind of business opportunity', {
        consulting_engagement: 'Consulting engagement',
        'new_ventures/partnerships': 'New ventures/partnerships',
        business_deals: 'Business deals',
        corporate_training: 'Corporate training',
      }),
    },
  },
  expertwitness: {
    label: 'expert witness',
    summary: 'Send an expert witness inquiry to an expert',
    fields: {
      expertwitness_stage_in_process: choice('Stage', 'Where the case stands', {
        investigation: 'Investigation',
        in_litigation: 'In litigation',
        approaching_trial: 'Approaching trial',
        other: 'Other',
      }),
      expertwitness_organization_type: choice('Organization type', "Kind of the sender's organization", {
        legal_firm: 'Legal firm',
        corporate_legal_department: 'Corporate legal department',
        insurance_provider: 'Insurance provider',
        government_agency: 'Government agency',
        legal_nurse_consultant: 'Legal nurse consultant',
        other: 'Other',
      }),
    },
  },
} as const satisfies Record<string, KindSpec>

export type InquiryKind = keyof typeof INQUIRY_KINDS

/** Every kind, in the order of the table (donor and event first among the specific ones). */
export const KIND_NAMES: InquiryKind[] = Object.keys(INQUIRY_KINDS).filter(isInquiryKind)

export function isInquiryKind(value: string): value is InquiryKind {
  return Object.hasOwn(INQUIRY_KINDS, value)
}

/** A stored inquiry's kind: inquiries are written by the service alone, always with a kind of this table. */
export function storedKind(value: string): InquiryKind {
  if (isInquiryKind(value)) return value
  throw new Error(`An inquiry of the unknown kind "${value}" is stored.`)
}

/** Whether `kind` may be sent without an expert, to the organization's desk. */
export function goesToDesk(kind: InquiryKind): boolean {
  const spec: KindSpec = INQUIRY_KINDS[kind]
  return spec.desk === true
}

/** The fields `kind` adds, as `[name, field]` pairs in table order. */
export function kindFields(kind: InquiryKind): [string, KindField][] {
  const spec: KindSpec = INQUIRY_KINDS[kind]
  return Object.entries(spec.fields)
}

/** A value of a kind-specific field. */
export type KindFieldValue = string | number
