import type { FastifyRequest } from 'fastify'
import type { AppContext } from '../app-context.js'
import { ErrorEnvelope } from '../http/envelope.js'
import type { LinkMailer } from '../people/mail.js'

/** What the admin routes need beyond the app's infrastructure: the mailer of invitation links. */
export interface AdminContext extends AppContext {
  readonly mailer: LinkMailer
}

export const adminErrors = { '4xx': ErrorEnvelope }

/** Where links the service sends point: `EXPERTDIR_PUBLIC_URL`, else the address the request came to. */
export function publicBase(context: AppContext, request: FastifyRequest): string {
  return context.config.publicUrl ?? `${request.protocol}://${request.host}`
}
