import { readFile } from 'node:fs/promises'
import type { Command } from 'commander'
import type { Static, TSchema } from 'typebox'
import { cliWriteContext } from '../../audit/write-context.js'
import { ApiError } from '../../errors.js'
import { compileValidator } from '../../http/validation.js'
import { findOrganization } from '../../organizations/repository.js'
import { createNoticeMailer } from '../../people/mail.js'
import { approveDomain } from '../../sso/domains.js'
import type { SsoNotices } from '../../sso/notices.js'
import { PROTOCOLS, SsoSettingsUpdate } from '../../sso/schemas.js'
import { createSecretBox } from '../../sso/secret-box.js'
import {
  domainView,
  loadSsoSettings,
  noSso,
  putSsoSettings,
  removeSsoSettings,
  settingsView,
} from '../../sso/settings.js'
import { type Cli, CliError, positiveInt, UsageError } from '../output.js'
import { publicBase } from './people.js'

const checkOf = <S extends TSchema>(schema: S) => compileValidator<Static<S>>(schema, 'body')
/** The same check the API's PUT runs on its body. */
const validateChanges = checkOf(SsoSettingsUpdate)

/** A refusal of the service, every offending field named. */
function refusal(error: ApiError): string {
  const details = (error.details ?? []).map((detail) => `${detail.field} ${detail.message}`)
  return details.length > 0 ? details.join('; ') : error.message
}

/** A service refusal as a CLI failure. */
function explained<T>(work: () => Promise<T>): Promise<T> {
  return work().catch((error: unknown) => {
    throw error instanceof ApiError ? new CliError(refusal(error)) : error
  })
}

async function readStdin(cli: Cli, option: string): Promise<string> {
  const { stdin } = cli.io
  if (!stdin) throw new UsageError(`${option}: no standard input`)
  let text = ''
  for await (const chunk of stdin)
    text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8')
  const value = text.replace(/\r?\n$/, '')
  if (value === '') throw new UsageError(`${option}: standard input was empty`)
  return value
}

function flag(name: string) {
  return (value: string): 0 | 1 => {
    if (['1', 'yes', 'on'].includes(value)) return 1
    if (['0', 'no', 'off'].includes(value)) return 0
    throw new UsageError(`${name} must be on or off`)
  }
}

interface SetOptions {
  org: number
  protocol?: string
  issuer?: string
  clientId?: string
  clientSecretStdin?: boolean
  clientSecret?: false
  scope?: string
  groupsClaim?: string
  entryPoint?: string
  idpCertificate?: string
  spEntityId?: string
  map?: string[]
  defaultRole?: string
  allowCreate?: 0 | 1
  domain?: string[]
  passwords?: 0 | 1
  json?: boolean
}

/** The options given, as the API's PUT body. */
async function changesOf(cli: Cli, options: SetOptions): Promise<Record<string, unknown>> {
  const mapping = options.map?.map((pair) => {
    const at = pair.lastIndexOf('=')
    if (at <= 0) throw new UsageError(`--map ${pair}: write GROUP=ROLE`)
    return { group: pair.slice(0, at), role: pair.slice(at + 1) }
  })
  const changes: Record<string, unknown> = {
    protocol: options.protocol,
    issuer: options.issuer,
    client_id: options.clientId,
    client_secret: options.clientSecretStdin
      ? await readStdin(cli, '--client-secret-stdin')
      : options.clientSecret === false
        ? null
        : undefined,
    scope: options.scope,
    groups_claim: options.groupsClaim,
    entry_point: options.entryPoint,
    idp_certificate: options.idpCertificate ? await readFile(options.idpCertificate, 'utf8') : undefined,
    sp_entity_id: options.spEntityId,
    role_mapping: mapping,
    default_role: options.defaultRole === 'none' ? null : options.defaultRole,
    allow_create: options.allowCreate,
    allowed_domains: options.domain,
    passwords_off: options.passwords === undefined ? undefined : 1 - options.passwords,
  }
  return Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined))
}

/** The owners' notices of a change made here: the same email the API's changes send. */
async function withNotices<T>(cli: Cli, work: (notices: SsoNotices) => Promise<T>): Promise<T> {
  const config = cli.config()
  const mailer = createNoticeMailer(config.smtpUrl, config.mailFrom, () => {})
  try {
    return await work({ mailer, publicUrl: config.publicUrl })
  } finally {
    mailer.close()
  }
}

export function ssoCommands(program: Command, cli: Cli): void {
  const sso = program
    .command('sso')
    .description("Manage an organization's single sign-on (OpenID Connect or SAML 2.0)")

  sso
    .command('show')
    .description('Show the settings (never the client secret) and the URLs to give the identity provider')
    .requiredOption('--org <id>', 'organization id', positiveInt('--org'))
    .option('--json', 'print one JSON object')
    .action(async (options: { org: number; json?: boolean }) => {
      const settings = await cli.withDatabase(({ db }) => loadSsoSettings(db, options.org))
      if (!settings) throw new CliError(noSso().message)
      const view = settingsView(settings, publicBase(cli.config()))
      cli.report(options.json, view, () =>
        Object.entries(view)
          .map(([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
          .join('\n'),
      )
    })

  sso
    .command('set')
    .description('Set up or change single sign-on; options left out keep their value (as PUT .../sso)')
    .requiredOption('--org <id>', 'organization id', positiveInt('--org'))
    .option('--protocol <protocol>', PROTOCOLS.join(' or '))
    .option('--issuer <url>', 'OIDC: the issuer URL')
    .option('--client-id <id>', 'OIDC: the client id')
    .option(
      '--client-secret-stdin',
      'OIDC: read the client secret from standard input (needs EXPERTDIR_SECRET_KEY)',
    )
    .option('--no-client-secret', 'OIDC: forget the stored client secret (a public client)')
    .option('--scope <scopes>', 'OIDC: the scopes to ask for (default "openid email profile")')
    .option('--groups-claim <name>', 'the claim (OIDC) or extra attribute (SAML) listing groups')
    .option('--entry-point <url>', 'SAML: the identity provider’s single sign-on URL')
    .option('--idp-certificate <file>', 'SAML: a PEM file with the identity provider’s signing certificate')
    .option('--sp-entity-id <id>', 'SAML: this service’s entity id (default: the metadata URL)')
    .option('--map <group=role...>', 'group to role mappings (replace the stored ones)')
    .option('--default-role <role>', 'role of created people whom no group maps, or "none"')
    .option('--allow-create <on|off>', 'create people on first sign-in', flag('--allow-create'))
    .option('--domain <domain...>', 'allowed email domains (replace the stored ones)')
    .option(
      '--passwords <on|off>',
      'off: refuse password sign-in and resets for the organization',
      flag('--passwords'),
    )
    .option('--json', 'print one JSON object')
    .action(async (options: SetOptions) => {
      const validated = validateChanges(await changesOf(cli, options))
      if (validated.error) throw new UsageError(refusal(validated.error))
      const changes = validated.value
      const config = cli.config()
      const settings = await cli.withDatabase(async ({ db }) => {
        if (!(await findOrganization(db, options.org))) throw new CliError(`No organization ${options.org}`)
        return withNotices(cli, (notices) =>
          explained(() =>
            putSsoSettings(
              {
                ...cliWriteContext(db, options.org, 'sso set', Date.now()),
                secretBox: config.secretKey ? createSecretBox(config.secretKey) : undefined,
                notices,
              },
              changes,
            ),
          ),
        )
      })
      const view = settingsView(settings, publicBase(config))
      cli.report(options.json, view, () =>
        [
          `Single sign-on of organization ${options.org}: ${view.protocol}, passwords ${view.passwords_off ? 'off' : 'on'}.`,
          `Sign-in URL: ${view.sign_in_url}`,
          view.protocol === 'oidc'
            ? `Register this redirect URI at the identity provider: ${view.redirect_uri}`
            : `Give the identity provider this metadata: ${view.metadata_url}`,
        ].join('\n'),
      )
    })

  sso
    .command('remove')
    .description('Remove single sign-on; passwords work again for the organization')
    .requiredOption('--org <id>', 'organization id', positiveInt('--org'))
    .option('--json', 'print one JSON object')
    .action(async (options: { org: number; json?: boolean }) => {
      await cli.withDatabase(({ db }) =>
        withNotices(cli, (notices) =>
          explained(() =>
            removeSsoSettings({ ...cliWriteContext(db, options.org, 'sso remove', Date.now()), notices }),
          ),
        ),
      )
      cli.report(
        options.json,
        { org: options.org, removed: true },
        () => `Removed the single sign-on of organization ${options.org}.`,
      )
    })

  sso
    .command('verify-domain')
    .description(
      "Approve an email domain for an organization's single sign-on (instead of its DNS TXT record): " +
        'the sign-in page then sends its people there. Added to the allowed domains when missing; ' +
        "another organization's unverified claim of it is removed.",
    )
    .requiredOption('--org <id>', 'organization id', positiveInt('--org'))
    .requiredOption('--domain <domain>', 'the email domain')
    .option('--json', 'print one JSON object')
    .action(async (options: { org: number; domain: string; json?: boolean }) => {
      const checked = validateChanges({ allowed_domains: [options.domain] })
      if (checked.error) throw new UsageError(`--domain ${options.domain}: must be a domain name`)
      const domain = await cli.withDatabase(({ db }) =>
        withNotices(cli, (notices) =>
          explained(() =>
            approveDomain(
              { ...cliWriteContext(db, options.org, 'sso verify-domain', Date.now()), notices },
              options.domain,
            ),
          ),
        ),
      )
      cli.report(
        options.json,
        { org: options.org, ...domainView(domain) },
        () =>
          `The domain ${domain.domain} is verified for organization ${options.org}: the sign-in page sends its people to its single sign-on.`,
      )
    })
}
