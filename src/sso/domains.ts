import { Resolver } from 'node:dns/promises'
import type { Kysely } from 'kysely'
import { recordAudit } from '../audit/log.js'
import { randomToken } from '../auth/secrets.js'
import type { DB } from '../db/schema.js'
import { writeTransaction } from '../db/transactions.js'
import { ApiError } from '../errors.js'
import { notifyOwners } from './notices.js'
import {
  domainsClaimedElsewhere,
  markDomainVerified,
  releaseDomain,
  replaceSsoDomains,
} from './repository.js'
import {
  assertMayChangeSso,
  loadSsoSettings,
  noSso,
  type SsoDomain,
  type SsoWriteContext,
  txtNameOf,
} from './settings.js'

/**
 * Proof that an organization may route an email domain's people to its identity provider (docs/security.md):
 * a TXT record at `_expertdir.<domain>` holding the value the settings show, or the operator's
 * approval with the CLI. Until then the domain restricts who may sign in but routes no one.
 */

/** Looks up the TXT records of a name: each record's strings, as `node:dns` answers. */
export type TxtResolver = (name: string) => Promise<string[][]>

/**
 * The TXT lookup: the system's resolver, or the DNS servers given (`EXPERTDIR_DNS_SERVERS`, each
 * `address` or `address:port`), one try of a few seconds each.
 */
export function txtResolver(servers: readonly string[]): TxtResolver {
  const resolver = new Resolver({ timeout: 3000, tries: 2 })
  if (servers.length > 0) resolver.setServers([...servers])
  return (name) => resolver.resolveTxt(name)
}

/** DNS answers that mean "no such record", rather than "DNS did not answer". */
const NOT_THERE = new Set(['ENOTFOUND', 'ENODATA', 'ENONAME', 'NXDOMAIN'])

async function domainOf(db: Kysely<DB>, orgId: number, domain: string): Promise<SsoDomain> {
  const settings = await loadSsoSettings(db, orgId)
  if (!settings) throw noSso()
  const found = settings.domains.find((candidate) => candidate.domain === domain)
  if (!found) {
    throw new ApiError(
      'not_found',
      `${domain} is not one of this organization’s allowed domains: add it first.`,
    )
  }
  return found
}

/**
 * Checks the domain's TXT record and marks it verified when it holds the expected value (owners only).
 * 409 when the record is not there (yet), 503 when DNS did not answer.
 */
export async function verifyDomainByDns(
  context: SsoWriteContext,
  domainName: string,
  resolveTxt: TxtResolver,
): Promise<SsoDomain> {
  assertMayChangeSso(context.trail.actor)
  const { db, orgId } = context
  const domain = domainName.toLowerCase()
  const current = await domainOf(db, orgId, domain)
  if (current.verifiedAt !== null) return current
  let records: string[][]
  try {
    records = await resolveTxt(txtNameOf(domain))
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? String(error.code) : ''
    if (!NOT_THERE.has(code)) {
      throw new ApiError('unavailable', `DNS did not answer for ${txtNameOf(domain)}: try again in a moment.`)
    }
    records = []
  }
  if (!records.some((strings) => strings.join('') === current.txtValue)) {
    throw new ApiError(
      'conflict',
      `No TXT record at ${txtNameOf(domain)} holds ${current.txtValue} yet: add it at your DNS provider and try again (changes can take a while to be seen).`,
    )
  }
  return markVerified(context, domain, 'dns')
}

/**
 * The operator's approval (CLI): the domain becomes the organization's and verified, added to its
 * allowed domains when missing; another organization's unverified claim of it is removed. Refused
 * when another organization has verified it.
 */
export async function approveDomain(context: SsoWriteContext, domainName: string): Promise<SsoDomain> {
  assertMayChangeSso(context.trail.actor)
  const { db, orgId } = context
  const domain = domainName.toLowerCase()
  await writeTransaction(db, async (trx) => {
    const settings = await loadSsoSettings(trx, orgId)
    if (!settings) throw noSso()
    const others = await domainsClaimedElsewhere(trx, orgId, [domain])
    if (others.some((row) => row.verified_at !== null)) {
      throw new ApiError(
        'conflict',
        `${domain} is verified by organization ${others[0]?.org_id}: remove it there first.`,
      )
    }
    if (others.length > 0) await releaseDomain(trx, domain, orgId)
    if (!settings.allowedDomains.includes(domain)) {
      await replaceSsoDomains(trx, orgId, [...settings.allowedDomains, domain].sort(), () => randomToken(18))
    }
  })
  return markVerified(context, domain, 'operator')
}

async function markVerified(
  context: SsoWriteContext,
  domain: string,
  by: 'dns' | 'operator',
): Promise<SsoDomain> {
  const { db, orgId } = context
  await writeTransaction(db, async (trx) => {
    if (!(await markDomainVerified(trx, orgId, domain, by, context.now))) {
      throw new ApiError(
        'not_found',
        `${domain} is not one of this organization’s allowed domains: add it first.`,
      )
    }
    await recordAudit(trx, orgId, context.trail, { kind: 'sso_settings', id: orgId }, context.now)
  })
  await notifyOwners(db, context.notices, {
    orgId,
    actor: context.trail.actor,
    what: `changed: the domain ${domain} is verified (${by === 'dns' ? 'DNS TXT record' : 'operator’s approval'}) and now sends its people to your identity provider`,
    now: context.now,
  })
  return domainOf(db, orgId, domain)
}
