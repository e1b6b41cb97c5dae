import { writeContextOf } from '../audit/write-context.js'
import { ok, Success } from '../http/envelope.js'
import { CorporationParams } from '../http/params.js'
import type { TypedApp } from '../http/typed-routes.js'
import { linkUrl } from '../people/links.js'
import { listPeople } from '../people/repository.js'
import {
  addPerson,
  type PersonSummary,
  reinvitePerson,
  removePerson,
  summarize,
  updatePerson,
} from '../people/service.js'
import { toSeconds } from '../time.js'
import { type AdminContext, adminErrors, publicBase } from './context.js'
import {
  PersonCreate,
  PersonInvited,
  PersonList,
  PersonParams,
  PersonRemoved,
  PersonUpdate,
  PersonView,
} from './schemas.js'

const PATH = '/v2/organization/:corporation/people'

/** A person as the API shows them: times in unix seconds. */
function personView(person: PersonSummary) {
  const { invitation_expires_at: ends } = person
  return {
    ...person,
    invitation_expires_at: ends === null ? null : toSeconds(Date.parse(ends)),
    created_at: toSeconds(Date.parse(person.created_at)),
  }
}

/** Emails an invitation link; what became of it (`skipped` without a mail server). */
function sendInvitation(context: AdminContext, added: { person: PersonSummary; invitation?: string }) {
  if (!added.invitation) return Promise.resolve('skipped' as const)
  return context.mailer.send(
    added.person.email,
    'invitation',
    linkUrl(publicBase(context), 'invitation', added.invitation),
  )
}

/**
 * `GET|POST .../people`, `PUT|DELETE .../people/:id` (what `expertdir people add|list|remove` do). The
 * rules are the service's: an organization keeps an owner, and only an owner (or the operator) makes,
 * demotes or removes one; a machine client with `admin` counts as an admin.
 */
export function peopleRoutes(app: TypedApp, context: AdminContext): void {
  const { db } = context

  app.get(
    PATH,
    {
      schema: {
        operationId: 'listPeople',
        tags: ['admin'],
        summary: 'The people who sign in to the organization, with their roles',
        params: CorporationParams,
        response: { 200: Success(PersonList), ...adminErrors },
      },
      config: { scope: 'admin' },
    },
    async (request) => {
      const rows = await listPeople(db, request.params.corporation)
      return ok({ people: rows.map((row) => personView(summarize(row))) })
    },
  )

  app.post(
    PATH,
    {
      schema: {
        operationId: 'invitePerson',
        tags: ['admin'],
        summary: 'Add a person and email them a single-use invitation link (valid 7 days)',
        description:
          'expert is required for the expert role (the username of its expert) and refused for the others. ' +
          'Only an owner may add an owner. The link itself is never in the answer: it goes to the address only.',
        params: CorporationParams,
        body: PersonCreate,
        response: { 200: Success(PersonInvited), ...adminErrors },
      },
      config: { scope: 'admin' },
    },
    async (request) => {
      const added = await addPerson(
        writeContextOf(request, context, request.params.corporation),
        request.body,
      )
      const invitation = await sendInvitation(context, added)
      request.log.info({ person: added.person.id, outcome: invitation }, 'invitation link')
      return ok({ person: personView(added.person), invitation })
    },
  )

  app.put(
    `${PATH}/:id`,
    {
      schema: {
        operationId: 'updatePerson',
        tags: ['admin'],
        summary: "Change a person's name, role or linked expert",
        description:
          'A role change applies to the tokens the person already holds. Only an owner may make an owner or change ' +
          'an owner’s role; the last owner keeps the role (409).',
        params: PersonParams,
        body: PersonUpdate,
        response: { 200: Success(PersonView), ...adminErrors },
      },
      config: { scope: 'admin' },
    },
    async (request) => {
      const { corporation, id } = request.params
      const { expert, ...rest } = request.body
      const person = await updatePerson(writeContextOf(request, context, corporation), id, {
        ...rest,
        ...(expert === undefined ? {} : { expert: expert === '' ? null : expert }),
      })
      return ok(personView(person))
    },
  )

  app.post(
    `${PATH}/:id/invitation`,
    {
      schema: {
        operationId: 'resendInvitation',
        tags: ['admin'],
        summary: 'Email a person who has not set a password a new invitation link (valid 7 days)',
        description:
          'The earlier link stops working. Refused (409) once the person has set a password: they reset it ' +
          'from the sign-in page. The link itself is never in the answer.',
        params: PersonParams,
        response: { 200: Success(PersonInvited), ...adminErrors },
      },
      config: { scope: 'admin' },
    },
    async (request) => {
      const { corporation, id } = request.params
      const added = await reinvitePerson(writeContextOf(request, context, corporation), id)
      const invitation = await sendInvitation(context, added)
      request.log.info({ person: added.person.id, outcome: invitation }, 'invitation link')
      return ok({ person: personView(added.person), invitation })
    },
  )

  app.delete(
    `${PATH}/:id`,
    {
      schema: {
        operationId: 'removePerson',
        tags: ['admin'],
        summary: 'Remove a person: their sessions and dashboard tokens stop at once',
        description: 'Only an owner may remove an owner; the last owner cannot be removed (409).',
        params: PersonParams,
        response: { 200: Success(PersonRemoved), ...adminErrors },
      },
      config: { scope: 'admin' },
    },
    async (request) => {
      const { corporation, id } = request.params
      const removed = await removePerson(writeContextOf(request, context, corporation), id)
      return ok({ id: removed.id, removed: true as const })
    },
  )
}
