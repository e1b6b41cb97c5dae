/** How an inquiry is handled (CONTRACT §17): its status, and who was emailed about it. */

export const INQUIRY_STATUSES = ['new', 'assigned', 'answered', 'closed', 'spam'] as const
export type InquiryStatus = (typeof INQUIRY_STATUSES)[number]

/** How a person reads each status. */
export const INQUIRY_STATUS_LABELS: Readonly<Record<InquiryStatus, string>> = {
  new: 'New',
  assigned: 'Assigned',
  answered: 'Answered',
  closed: 'Closed',
  spam: 'Spam',
}

/** Who an email goes to: the expert, the expert's assistant, or the organization's desk. */
export const RECIPIENT_ROLES = ['expert', 'assistant', 'desk'] as const
export type RecipientRole = (typeof RECIPIENT_ROLES)[number]

export interface Recipient {
  role: RecipientRole
  email: string
}

function isRecipient(value: unknown): value is Recipient {
  return (
    typeof value === 'object' &&
    value !== null &&
    'role' in value &&
    'email' in value &&
    typeof value.email === 'string' &&
    RECIPIENT_ROLES.some((known) => known === value.role)
  )
}

/** The stored `recipients` column; anything that is not a recipient is dropped. */
export function parseRecipients(stored: string): Recipient[] {
  const value: unknown = JSON.parse(stored)
  return Array.isArray(value) ? value.filter(isRecipient) : []
}

export function isInquiryStatus(value: string): value is InquiryStatus {
  return INQUIRY_STATUSES.some((status) => status === value)
}

/** What a PATCH asks for, validated by its schema: null unassigns, "" and null clear the notes. */
export interface HandlingChange {
  status?: InquiryStatus
  /** A person's id (CONTRACT §22). */
  assignee?: number | null
  notes?: string | null
}
