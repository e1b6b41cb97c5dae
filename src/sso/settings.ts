import { X509Certificate } from 'node:crypto'
import type { Actor } from '../audit/actor.js'
import { recordAudit } from '../audit/log.js'
import type { WriteContext } from '../audit/write-context.js'
import { randomToken } from '../auth/secrets.js'
import { isUniqueViolation, type Queryable } from '../db/database.js'
import type { SsoSettingsRow } from '../db/sso-schema.js'
import { lockedForWrite, writeTransaction } from '../db/transactions.js'
import { ApiError, type ErrorDetail, notFound, validationError } from '../errors.js'
import { forgetBindings } from './bindings.js'
import { notifyOwners, type SsoNotices } from './notices.js'
import {
  deleteSsoSettings,
  domainsClaimedElsewhere,
  findSsoDomains,
  findSsoSettings,
  replaceSsoDomains,
  upsertSsoSettings,
} from './repository.js'
import { isSsoRole, type SsoRole } from './roles.js'
import type { Protocol, SsoDomainViewData, SsoSettingsChanges, SsoSettingsViewData } from './schemas.js'
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
  /** The allowed domains with their verification: only verified ones route the sign-in page. */
  domains: SsoDomain[]
  passwordsOff: boolean
  updatedAt: number
}

export interface SsoDomain {
  domain: string
  /** What the TXT record at `txtName` must hold. */
  txtValue: string
  verifiedAt: number | null
  verifiedBy: 'dns' | 'operator' | null
}

/** Where the TXT record that proves a domain is looked up. */
export const txtNameOf = (domain: string) => `_expertdir.${domain}`
const txtValueOf = (token: string | null) => `expertdir-verification=${token ?? ''}`

type DomainRow = Awaited<ReturnType<typeof findSsoDomains>>[number]

function domainOf(row: DomainRow): SsoDomain {
  return {
    domain: row.domain,
    txtValue: txtValueOf(row.token),
    verifiedAt: row.verified_at === null ? null : Number(row.verified_at),
    verifiedBy: row.verified_by === 'dns' || row.verified_by === 'operator' ? row.verified_by : null,
  }
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

function fromRow(row: SsoSettingsRow, domains: DomainRow[]): SsoSettings {
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
    allowedDomains: domains.map((domain) => domain.domain),
    domains: domains.map(domainOf),
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

/** A domain with its verification, as the API and the CLI show it. */
export function domainView(domain: SsoDomain): SsoDomainViewData {
  return {
    domain: domain.domain,
    verified: domain.verifiedAt !== null,
    verified_at: domain.verifiedAt === null ? null : new Date(domain.verifiedAt).toISOString(),
    verified_by: domain.verifiedBy,
    txt_name: txtNameOf(domain.domain),
    txt_value: domain.txtValue,
  }
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
    domains: settings.domains.map(domainView),
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

/**
 * What every change of the settings needs: the write context (whose trail also decides the owner-only
 * rule) and the owners' notices.
 */
export interface SsoWriteContext extends WriteContext {
  notices: SsoNotices
}

export interface SettingsWriteContext extends SsoWriteContext {
  /** Absent when EXPERTDIR_SECRET_KEY is not set: then no client secret can be stored. */
  secretBox: SecretBox | undefined
}

/**
 * Single sign-on decides who may sign in as whom, so only an owner (or the operator's CLI) changes
 * it; an admin person or a machine client with the `admin` scope may read it (docs/security.md).
 */
export function assertMayChangeSso(actor: Actor): void {
  if (actor.kind === 'cli' || (actor.kind === 'person' && actor.role === 'owner')) return
  throw new ApiError(
    'forbidden',
    actor.kind === 'client'
      ? 'Only an owner may change single sign-on, in the dashboard: a machine client may read it but not change it.'
      : 'Only an owner may change single sign-on: an admin may read it but not change it.',
  )
}

/** The identity provider's identity: when it changes, the people bound to the old one are forgotten. */
function providerOf(settings: SsoSettings): string {
  return JSON.stringify([
    settings.protocol,
    settings.issuer,
    settings.clientId,
    settings.entryPoint,
    settings.idpCertificate,
  ])
}

/** The API names of the fields whose value differs (the client secret: whether it was replaced). */
function changedFields(current: SsoSettings | undefined, next: SsoSettings, changes: SsoSettingsChanges) {
  const names: [keyof SsoSettings, string][] = [
    ['protocol', 'protocol'],
    ['issuer', 'issuer'],
    ['clientId', 'client_id'],
    ['scope', 'scope'],
    ['groupsClaim', 'groups_claim'],
    ['entryPoint', 'entry_point'],
    ['idpCertificate', 'idp_certificate'],
    ['spEntityId', 'sp_entity_id'],
    ['roleMapping', 'role_mapping'],
    ['defaultRole', 'default_role'],
    ['allowCreate', 'allow_create'],
    ['allowedDomains', 'allowed_domains'],
    ['passwordsOff', 'passwords_off'],
  ]
  const fields = names
    .filter(([key]) => JSON.stringify(current?.[key]) !== JSON.stringify(next[key]))
    .map(([, name]) => name)
  if (changes.client_secret !== undefined) fields.push('client_secret')
  return fields
}

function domainsClaimed(domains: readonly string[]): ApiError {
  const list = domains.join(', ')
  return new ApiError(
    'conflict',
    `${list} ${domains.length === 1 ? 'is' : 'are'} already claimed by another organization: a domain routes to one organization only. If it is yours, ask the service’s operator.`,
    {
      details: domains.map((domain) => ({
        field: 'allowed_domains',
        message: `${domain} is claimed by another organization`,
      })),
    },
  )
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
  const allowedDomains = [
    ...new Set((changes.allowed_domains ?? current?.allowedDomains ?? []).map((d) => d.toLowerCase())),
  ].sort()
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
    allowedDomains,
    // What the domains' rows say once written: the caller reads them back.
    domains: (current?.domains ?? []).filter((domain) => allowedDomains.includes(domain.domain)),
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
 * transaction, and returns them. Owners only (`assertMayChangeSso`); a domain another organization
 * lists is a 409; a new identity provider forgets every binding to the old one; the owners are
 * emailed once it is committed.
 */
export async function putSsoSettings(
  context: SettingsWriteContext,
  changes: SsoSettingsChanges,
): Promise<SsoSettings> {
  assertMayChangeSso(context.trail.actor)
  const { db, orgId } = context
  let result: { next: SsoSettings; fields: string[]; forgotten: number }
  try {
    result = await writeSettings(context, changes)
  } catch (error) {
    if (isUniqueViolation(error)) throw domainsClaimed(changes.allowed_domains ?? [])
    throw error
  }
  const { next, fields, forgotten } = result
  if (fields.length > 0) {
    await notifyOwners(db, context.notices, {
      orgId,
      actor: context.trail.actor,
      what: 'changed',
      fields,
      forgotten,
      now: context.now,
    })
  }
  return (await loadSsoSettings(db, orgId)) ?? next
}

async function writeSettings(context: SettingsWriteContext, changes: SsoSettingsChanges) {
  const { db, orgId } = context
  return writeTransaction(db, async (trx) => {
    const organization = await lockedForWrite(
      trx,
      trx.selectFrom('organizations').select('id').where('id', '=', orgId),
    ).executeTakeFirst()
    if (!organization) throw notFound('The organization')
    const current = await loadSsoSettings(trx, orgId)
    const next = merged(orgId, current, changes, context)
    const claimed = await domainsClaimedElsewhere(trx, orgId, next.allowedDomains)
    if (claimed.length > 0) throw domainsClaimed(claimed.map((row) => row.domain))
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
    await replaceSsoDomains(trx, orgId, next.allowedDomains, () => randomToken(18))
    const forgotten =
      current !== undefined && providerOf(current) === providerOf(next) ? 0 : await forgetBindings(trx, orgId)
    await recordAudit(trx, orgId, context.trail, { kind: 'sso_settings', id: orgId }, context.now)
    return { next, fields: changedFields(current, next, changes), forgotten }
  })
}

/**
 * Removes the organization's single sign-on (passwords work again for its people, bindings are
 * forgotten); 404 when none. Owners only; the owners are emailed.
 */
export async function removeSsoSettings(context: SsoWriteContext): Promise<void> {
  assertMayChangeSso(context.trail.actor)
  const { db, orgId, trail, now } = context
  const removed = await writeTransaction(db, async (trx) => {
    const deleted = await deleteSsoSettings(trx, orgId)
    if (!deleted) return undefined
    const forgotten = await forgetBindings(trx, orgId)
    await recordAudit(trx, orgId, trail, { kind: 'sso_settings', id: orgId }, now)
    return { forgotten }
  })
  if (!removed) throw noSso()
  await notifyOwners(db, context.notices, {
    orgId,
    actor: trail.actor,
    what: 'removed: people sign in with passwords again',
    forgotten: removed.forgotten,
    now,
  })
}

export function noSso(): ApiError {
  return new ApiError('not_found', 'This organization has no single sign-on set up.')
}
