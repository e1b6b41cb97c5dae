/**
 * Who writes (CONTRACT §14): a signed-in person (through a dashboard token), a machine client, the
 * operator's CLI, the service itself (housekeeping), or the publishing schedule (CONTRACT §21), which
 * names who set the time it carries out. A person acting as a delegate of a profile also names it
 * (`onBehalfOf`: the profile's username). Every audited write names one.
 */
export type Actor =
  | { kind: 'person'; id: number; role: string; onBehalfOf?: string | undefined }
  | { kind: 'client'; id: string }
  | { kind: 'cli' }
  | { kind: 'system' }
  | { kind: 'schedule'; setBy: string | null }

export type ActorKind = Actor['kind']

export const ACTOR_KINDS = [
  'person',
  'client',
  'cli',
  'system',
  'schedule',
] as const satisfies readonly ActorKind[]

export function isActorKind(value: string): value is ActorKind {
  return ACTOR_KINDS.some((kind) => kind === value)
}

/** What a write is done through: who, and the route or command (`POST /v2/...`, `cli people add`). */
export interface AuditTrail {
  actor: Actor
  action: string
}

/** The trail of a CLI command: `cliTrail('people add')`. */
export function cliTrail(command: string): AuditTrail {
  return { actor: { kind: 'cli' }, action: `cli ${command}` }
}

/**
 * The id column of an actor: the person's or the client's id, who set the schedule's time (an actor
 * reference), nothing for the CLI and the system.
 */
export function actorId(actor: Actor): string | null {
  if (actor.kind === 'person') return String(actor.id)
  if (actor.kind === 'client') return actor.id
  if (actor.kind === 'schedule') return actor.setBy
  return null
}

/**
 * An actor as one text, the way the audit route's `actor` filter names it: `person:12`, `client:cl_x`,
 * `cli`, `system`; the schedule passes on who set it. What a stored grant or schedule keeps of who made it.
 */
export function actorReference(actor: Actor): string | null {
  if (actor.kind === 'person') return `person:${actor.id}`
  if (actor.kind === 'client') return `client:${actor.id}`
  if (actor.kind === 'schedule') return actor.setBy
  return actor.kind
}

/** The kind and id of an actor reference (`person:12` -> person 12); undefined for anything else. */
export function parseActorReference(
  reference: string | null,
): { kind: 'person' | 'client'; id: string } | { kind: 'cli' | 'system'; id: null } | undefined {
  if (reference === 'cli' || reference === 'system') return { kind: reference, id: null }
  const match = reference === null ? null : /^(person|client):(.+)$/.exec(reference)
  if (!match?.[2]) return undefined
  return { kind: match[1] === 'person' ? 'person' : 'client', id: match[2] }
}
