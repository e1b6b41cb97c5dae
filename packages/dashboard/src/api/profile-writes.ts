import { authorizedFetch } from './client.ts'
import { failureOf } from './failure.ts'

/** Where a section write goes: the section, and an element id or `order` below it. */
export interface SectionPath {
  organization: number
  username: string
  section: string
  id?: number | 'order'
}

/**
 * Writes of one profile section, addressed by the section's name. The typed client needs each path as
 * a literal, which a form generated for any section cannot give, so these calls name the path pattern
 * of CONTRACT §9 and send bodies built from the generated schema of that very section
 * (src/schemas.ts); the server validates them against the same schema. `ifMatch` is the ETag the
 * profile was read at: the server refuses the write (412) when someone else changed it since.
 */
export async function sectionWrite(
  method: 'POST' | 'PUT' | 'DELETE',
  path: SectionPath,
  ifMatch: string,
  body?: Record<string, unknown>,
): Promise<unknown> {
  const url = [
    '/v2/organization',
    path.organization,
    'expert',
    encodeURIComponent(path.username),
    path.section,
    ...(path.id === undefined ? [] : [path.id]),
  ].join('/')
  return send(url, method, ifMatch, body && { type: 'application/json', body: JSON.stringify(body) })
}

async function send(
  url: string,
  method: 'POST' | 'PUT' | 'DELETE',
  ifMatch: string,
  content?: { type: string; body: BodyInit },
): Promise<unknown> {
  const request = new Request(new URL(url, window.location.origin), {
    method,
    headers: { 'if-match': ifMatch, ...(content ? { 'content-type': content.type } : {}) },
    ...(content ? { body: content.body } : {}),
  })
  const response = await authorizedFetch(request)
  const payload: unknown = await response.json().catch(() => undefined)
  if (!response.ok) throw failureOf(payload, response.status)
  return payload
}

/**
 * `PUT .../avatar` with the image's bytes as the body (CONTRACT §16): the server reads the type from
 * the bytes and crops its square sizes around the focus point (0..1 from the left and the top).
 */
export async function uploadAvatar(
  path: { organization: number; username: string },
  file: Blob,
  focus: { x: number; y: number },
  ifMatch: string,
): Promise<unknown> {
  const query = new URLSearchParams({ focus_x: focus.x.toFixed(3), focus_y: focus.y.toFixed(3) })
  const url = `/v2/organization/${path.organization}/expert/${encodeURIComponent(path.username)}/avatar?${query}`
  return send(url, 'PUT', ifMatch, { type: file.type || 'image/jpeg', body: file })
}

/** `DELETE .../avatar`: the profile shows no photo, and its files are deleted. */
export async function deleteAvatar(
  path: { organization: number; username: string },
  ifMatch: string,
): Promise<unknown> {
  const url = `/v2/organization/${path.organization}/expert/${encodeURIComponent(path.username)}/avatar`
  return send(url, 'DELETE', ifMatch)
}
