import type { AppContext } from '../app-context.js'
import { ErrorEnvelope } from '../http/envelope.js'
import { linkBase } from '../people/links.js'
import type { LinkMailer } from '../people/mail.js'

/** What the admin routes need beyond the app's infrastructure: the mailer of invitation links. */
export interface AdminContext extends AppContext {
  readonly mailer: LinkMailer
}

export const adminErrors = { '4xx': ErrorEnvelope }

/**
 * Where links the service emails point: `EXPERTDIR_PUBLIC_URL`, else the configured listening address,
 * never the request's host (src/people/links.ts).
 */
export function publicBase(context: AppContext): string {
  return linkBase(context.config)
}
