import { X509Certificate } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { AuditTrail } from '../audit/actor.js'
import { recordAudit } from '../audit/log.js'
import type { Queryable } from '../db/database.js'
import type { DB } from '../db/schema.js'
import type { SsoSettingsRow } from '../db/sso-schema.js'
import { lockedForWrite, writeTransaction } from '../db/transactions.js'
import { ApiError, type ErrorDetail, notFound, validationError } from '../errors.js'
import {
  deleteSsoSettings,
  findSsoDomains,
  findSsoSettings,
  replaceSsoDomains,
  upsertSsoSettings,
} from './repository.js'
import { isSsoRole, type SsoRole } from './roles.js'
import type { Protocol, SsoSettingsChanges, SsoSettingsViewData } from './schemas.js'
import { isProtocol } from './schemas.js'
import type { SecretBox } from './secret-box.js'
import { ssoUrls } from './urls.js'

/**
 * An organization's single sign-on settings and their one write path (CONTRACT §14): the admin API
 * and the CLI both call `putSsoSettings` and `removeSsoSettings`, each one transaction, so whatever
 * every settings write must also record belongs in those two functions.
 */

export const DEFAULT_SCOPE = 'openid email profile'
export const DEFAULT_GROUPS_CLAIM = 'groups'

export interface RoleMappingEntry {
  group: string
  role: SsoRole
}

export interface SsoSettings {
  orgId: number
  protocol: Protocol
  issuer: string | null
  clientId: string | null
  /** Sealed by the secret box; null for a public client. */
  sealedClientSecret: string | null
  scope: string
  groupsClaim: string
  entryPoint: string | null
  idpCertificate: string | null
  /** Set explicitly; null: the metadata URL. */
  spEntityId: string | null
  roleMapping: RoleMappingEntry[]
  defaultRole: SsoRole | null
  allowCreate: boolean
  allowedDomains: string[]
  passwordsOff: boolean
  updatedAt: number
}

/** The associated data a client secret is sealed with: it opens only in its own organization's row. */
export const secretContext = (orgId: number) => `sso-client-secret:${orgId}`

function parseMapping(stored: string): RoleMappingEntry[] {
  const value: unknown = JSON.parse(stored)
  if (!Array.isArray(value)) return []
  return value.flatMap((item: unknown) => {
    if (typeof item !== 'object' || item === null) return []
    const group: unknown = Reflect.get(item, 'group')
    const role: unknown = Reflect.get(item, 'role')
    return typeof group === 'string' && typeof role === 'string' && isSsoRole(role) ? [{ group, role }] : []
  })
}

function fromRow(row: SsoSettingsRow, domains: string[]): SsoSettings {
  const protocol = isProtocol(row.protocol) ? row.protocol : 'oidc'
  return {
    orgId: Number(row.org_id),
    protocol,
    issuer: row.issuer,
    clientId: row.client_id,
    sealedClientSecret: row.client_secret,
    scope: row.scope ?? DEFAULT_SCOPE,
    groupsClaim: row.groups_claim ?? DEFAULT_GROUPS_CLAIM,
    entryPoint: row.entry_point,
    idpCertificate: row.idp_certificate,
    spEntityId: row.sp_entity_id,
    roleMapping: parseMapping(row.role_mapping),
    defaultRole: row.default_role !== null && isSsoRole(row.default_role) ? row.default_role : null,
    allowCreate: Number(row.allow_create) === 1,
    allowedDomains: domains,
    passwordsOff: Number(row.passwords_off) === 1,
    updatedAt: Number(row.updated_at),
  }
}

export async function loadSsoSettings(db: Queryable, orgId: number): Promise<SsoSettings | undefined> {
  const row = await findSsoSettings(db, orgId)
  return row ? fromRow(row, await findSsoDomains(db, orgId)) : undefined
}

/** The SAML audience: the configured entity id, else the SP metadata URL. */
export function spEntityIdOf(settings: SsoSettings, baseUrl: string): string {
  return settings.spEntityId ?? ssoUrls(baseUrl, settings.orgId).metadataUrl
}

/** The settings as the API and the CLI show them: never the client secret. */
export function settingsView(settings: SsoSettings, baseUrl: string): SsoSettingsViewData {
  const urls = ssoUrls(baseUrl, settings.orgId)
  return {
    protocol: settings.protocol,
    issuer: settings.issuer,
    client_id: settings.clientId,
    client_secret_set: settings.sealedClientSecret !== null,
    scope: settings.scope,
    groups_claim: settings.groupsClaim,
    entry_point: settings.entryPoint,
    idp_certificate: settings.idpCertificate,
    sp_entity_id: spEntityIdOf(settings, baseUrl),
    role_mapping: settings.roleMapping,
    default_role: settings.defaultRole,
    allow_create: settings.allowCreate ? 1 : 0,
    allowed_domains: settings.allowedDomains,
    passwords_off: settings.passwordsOff ? 1 : 0,
    sign_in_url: urls.signIn(settings.protocol),
    redirect_uri: urls.redirectUri,
    metadata_url: urls.metadataUrl,
    acs_url: urls.acsUrl,
    updated_at: new Date(settings.updatedAt).toISOString(),
  }
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]'])

/** https, or http to this machine (an identity provider under test); no query or fragment for an issuer. */
function urlProblem(value: string, issuer: boolean): string | undefined {
  const url = new URL(value)
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.has(url.hostname))) {
    return 'must be an https URL (http only on this machine: 127.0.0.1, localhost)'
  }
  if (issuer && (url.search !== '' || url.hash !== ''))
    return 'must be an issuer URL without a query or fragment'
  return undefined
}

/** A PEM certificate, or its base64 body, as PEM; undefined when it does not parse as X.509. */
export function certificatePem(value: string): string | undefined {
  const body = value.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '')
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body)) return undefined
  const pem = `-----BEGIN CERTIFICATE-----\n${body.match(/.{1,64}/g)?.join('\n') ?? ''}\n-----END CERTIFICATE-----\n`
  try {
    new X509Certificate(pem)
    return pem
  } catch {
    return undefined
  }
}

/** What each protocol cannot work without. */
const REQUIRED: Record<Protocol, readonly (keyof SsoSettings & keyof typeof FIELD_NAMES)[]> = {
  oidc: ['issuer', 'clientId'],
  saml: ['entryPoint', 'idpCertificate'],
}
const FIELD_NAMES = {
  issuer: 'issuer',
  clientId: 'client_id',
  entryPoint: 'entry_point',
  idpCertificate: 'idp_certificate',
} as const

export interface SettingsWriteContext {
  /** Absent when EXPERTDIR_SECRET_KEY is not set: then no client secret can be stored. */
  secretBox: SecretBox | undefined
  /** Who writes, for the audit log. */
  trail: AuditTrail
  now: number
}

/** The settings after `changes`, checked whole; every problem is reported at once. */
function merged(
  orgId: number,
  current: SsoSettings | undefined,
  changes: SsoSettingsChanges,
  context: SettingsWriteContext,
): SsoSettings {
  const details: ErrorDetail[] = []
  const protocol = changes.protocol ?? current?.protocol
  if (protocol === undefined) {
    throw validationError([
      { field: 'protocol', message: 'is required to set up single sign-on: oidc or saml' },
    ])
  }
  for (const [field, value, issuer] of [
    ['issuer', changes.issuer, true],
    ['entry_point', changes.entry_point, false],
  ] as const) {
    const problem = value === undefined ? undefined : urlProblem(value, issuer)
    if (problem) details.push({ field, message: problem })
  }
  const certificate =
    changes.idp_certificate === undefined ? undefined : certificatePem(changes.idp_certificate)
  if (changes.idp_certificate !== undefined && certificate === undefined) {
    details.push({ field: 'idp_certificate', message: 'must be an X.509 certificate in PEM' })
  }
  const scope = changes.scope === undefined ? current?.scope : (changes.scope ?? DEFAULT_SCOPE)
  if (scope !== undefined && !scope.split(' ').includes('openid')) {
    details.push({ field: 'scope', message: 'must include openid' })
  }
  const groups = (changes.role_mapping ?? []).map((entry) => entry.group)
  const repeated = groups.find((group, i) => groups.indexOf(group) !== i)
  if (repeated !== undefined) {
    details.push({
      field: 'role_mapping',
      message: `names the group ${JSON.stringify(repeated)} more than once`,
    })
  }
  let sealedClientSecret = current?.sealedClientSecret ?? null
  if (changes.client_secret === null) sealedClientSecret = null
  else if (changes.client_secret !== undefined) {
    if (!context.secretBox) {
      details.push({
        field: 'client_secret',
        message:
          'cannot be stored: the server has no encryption key (its operator sets EXPERTDIR_SECRET_KEY); leave it out for a public client',
      })
    } else sealedClientSecret = context.secretBox.seal(changes.client_secret, secretContext(orgId))
  }
  const next: SsoSettings = {
    orgId,
    protocol,
    issuer: changes.issuer ?? current?.issuer ?? null,
    clientId: changes.client_id ?? current?.clientId ?? null,
    sealedClientSecret,
    scope: scope ?? DEFAULT_SCOPE,
    groupsClaim:
      changes.groups_claim === undefined
        ? (current?.groupsClaim ?? DEFAULT_GROUPS_CLAIM)
        : (changes.groups_claim ?? DEFAULT_GROUPS_CLAIM),
    entryPoint: changes.entry_point ?? current?.entryPoint ?? null,
    idpCertificate: certificate ?? current?.idpCertificate ?? null,
    spEntityId: changes.sp_entity_id === undefined ? (current?.spEntityId ?? null) : changes.sp_entity_id,
    roleMapping: changes.role_mapping ?? current?.roleMapping ?? [],
    defaultRole: changes.default_role === undefined ? (current?.defaultRole ?? null) : changes.default_role,
    allowCreate:
      changes.allow_create === undefined ? (current?.allowCreate ?? false) : changes.allow_create === 1,
    allowedDomains: [
      ...new Set((changes.allowed_domains ?? current?.allowedDomains ?? []).map((d) => d.toLowerCase())),
    ].sort(),
    passwordsOff:
      changes.passwords_off === undefined ? (current?.passwordsOff ?? false) : changes.passwords_off === 1,
    updatedAt: context.now,
  }
  for (const key of REQUIRED[protocol]) {
    if (next[key] === null && !details.some((detail) => detail.field === FIELD_NAMES[key])) {
      details.push({ field: FIELD_NAMES[key], message: `is required for ${protocol}` })
    }
  }
  if (details.length > 0) throw validationError(details)
  return next
}

/**
 * Creates or changes the organization's settings (partial: fields left out keep their value) in one
 * transaction, and returns them.
 */
export async function putSsoSettings(
  db: Kysely<DB>,
  orgId: number,
  changes: SsoSettingsChanges,
  context: SettingsWriteContext,
): Promise<SsoSettings> {
  return writeTransaction(db, async (trx) => {
    const organization = await lockedForWrite(
      trx,
      trx.selectFrom('organizations').select('id').where('id', '=', orgId),
    ).executeTakeFirst()
    if (!organization) throw notFound('The organization')
    const current = await loadSsoSettings(trx, orgId)
    const next = merged(orgId, current, changes, context)
    await upsertSsoSettings(trx, {
      org_id: orgId,
      protocol: next.protocol,
      issuer: next.issuer,
      client_id: next.clientId,
      client_secret: next.sealedClientSecret,
      scope: next.scope,
      groups_claim: next.groupsClaim,
      entry_point: next.entryPoint,
      idp_certificate: next.idpCertificate,
      sp_entity_id: next.spEntityId,
      role_mapping: JSON.stringify(next.roleMapping),
      default_role: next.defaultRole,
      allow_create: next.allowCreate ? 1 : 0,
      passwords_off: next.passwordsOff ? 1 : 0,
      created_at: context.now,
      updated_at: context.now,
    })
    await replaceSsoDomains(trx, orgId, next.allowedDomains)
    await recordAudit(trx, orgId, context.trail, { kind: 'sso_settings', id: orgId }, context.now)
    return next
  })
}

/** Removes the organization's single sign-on (passwords work again for its people); 404 when none. */
export async function removeSsoSettings(
  db: Kysely<DB>,
  orgId: number,
  trail: AuditTrail,
  now: number,
): Promise<void> {
  const removed = await writeTransaction(db, async (trx) => {
    const deleted = await deleteSsoSettings(trx, orgId)
    if (deleted) await recordAudit(trx, orgId, trail, { kind: 'sso_settings', id: orgId }, now)
    return deleted
  })
  if (!removed) throw noSso()
}

export function noSso(): ApiError {
  return new ApiError('not_found', 'This organization has no single sign-on set up.')
}
