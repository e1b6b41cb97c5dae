/**
 * Who writes (CONTRACT §14): a signed-in person (through a dashboard token), a machine client, the
 * operator's CLI, or the service itself (housekeeping). Every audited write names one.
 */
export type Actor =
  | { kind: 'person'; id: number; role: string }
  | { kind: 'client'; id: string }
  | { kind: 'cli' }
  | { kind: 'system' }

export type ActorKind = Actor['kind']

export const ACTOR_KINDS = ['person', 'client', 'cli', 'system'] as const satisfies readonly ActorKind[]

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

/** The id column of an actor: the person's or the client's id, nothing for the CLI and the system. */
export function actorId(actor: Actor): string | null {
  return actor.kind === 'person' ? String(actor.id) : actor.kind === 'client' ? actor.id : null
}
