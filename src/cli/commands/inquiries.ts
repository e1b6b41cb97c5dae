import { type Command, Option } from 'commander'
import { cliWriteContext } from '../../audit/write-context.js'
import type { Queryable } from '../../db/database.js'
import { clearWebhook, readWebhook, setWebhook } from '../../delivery/settings.js'
import { isWebhookUrl } from '../../delivery/webhook.js'
import { webhookNetwork } from '../../delivery/webhook-network.js'
import { compileValidator } from '../../http/validation.js'
import { INQUIRY_STATUSES, type InquiryStatus, isInquiryStatus } from '../../inquiries/handling.js'
import { inboxCursor, readInbox } from '../../inquiries/inbox.js'
import { type InquiryKind, isInquiryKind, KIND_NAMES } from '../../inquiries/kinds.js'
import { handlingView, inquiryFields } from '../../inquiries/mapping.js'
import { eraseSenderData, exportSenderData } from '../../inquiries/privacy.js'
import type { InquiryWithDeliveries } from '../../inquiries/repository.js'
import {
  DEFAULT_PAGE_SIZE,
  ErasureQuery,
  type ErasureQueryInput,
  MAX_PAGE_SIZE,
} from '../../inquiries/schemas.js'
import { findOrganization } from '../../organizations/repository.js'
import { LARGEST_UNIX_SECONDS } from '../../validation/fields.js'
import { type Cli, CliError, explained, positiveInt, UsageError } from '../output.js'

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

interface ListOptions {
  org: number
  kind?: InquiryKind
  username?: string
  status?: InquiryStatus
  assignee?: number
  since?: number
  until?: number
  pageSize?: number
  limit?: number
  cursor?: string
  json?: boolean
}

async function requireOrganization(db: Queryable, orgId: number): Promise<void> {
  if (!(await findOrganization(db, orgId))) throw new CliError(`No organization ${orgId}`)
}

function kindOption(value: string): InquiryKind {
  if (!isInquiryKind(value))
    throw new UsageError(`--kind must be one of ${KIND_NAMES.join(', ')}, got "${value}"`)
  return value
}

function statusOption(value: string): InquiryStatus {
  if (!isInquiryStatus(value))
    throw new UsageError(`--status must be one of ${INQUIRY_STATUSES.join(', ')}, got "${value}"`)
  return value
}

function pageSize(name: string) {
  return (value: string): number => {
    const n = positiveInt(name)(value)
    if (n > MAX_PAGE_SIZE) throw new UsageError(`${name} must be at most ${MAX_PAGE_SIZE}, got ${n}`)
    return n
  }
}

function unixSeconds(name: string) {
  return (value: string): number => {
    if (!/^(0|[1-9][0-9]*)$/.test(value))
      throw new UsageError(`${name} must be a unix time in seconds, got "${value}"`)
    const n = Number(value)
    if (n > LARGEST_UNIX_SECONDS)
      throw new UsageError(`${name} looks like unix milliseconds: give unix seconds (divide by 1000)`)
    return n
  }
}

function cursorOption(value: string): string {
  if (inboxCursor.decode(value) === undefined) {
    throw new UsageError('--cursor must be the next_cursor of a previous page, exactly as it was printed')
  }
  return value
}

/** An inquiry as the CLI prints it (`--json`): the inbox's fields, times as ISO 8601. */
function listed({ inquiry, deliveries, assignee }: InquiryWithDeliveries) {
  return {
    id: inquiry.id,
    kind: inquiry.kind,
    username: inquiry.username,
    created_at: iso(inquiry.created_at),
    ...handlingView(inquiry, assignee),
    redacted_at: iso(inquiry.redacted_at),
    fields: inquiryFields(inquiry),
    delivery: deliveries.map((d) => ({
      channel: d.channel,
      status: d.status,
      attempts: d.attempts,
      last_error: d.last_error,
      next_attempt_at: iso(d.next_attempt_at),
    })),
  }
}

/** One inquiry on one line, for people. */
function line(inquiry: ReturnType<typeof listed>): string {
  const delivery = inquiry.delivery
    .map((d) => `${d.channel} ${d.status}${d.attempts > 1 ? ` (${d.attempts} attempts)` : ''}`)
    .join(', ')
  const assignee = inquiry.assignee ? `${inquiry.assignee.name} <${inquiry.assignee.email}>` : 'unassigned'
  const handling = `${inquiry.status} ${assignee}`
  const note = inquiry.notes === null ? '' : `\tnotes: ${inquiry.notes.replace(/\s+/g, ' ')}`
  return `${inquiry.id}\t${inquiry.created_at}\t${inquiry.kind}\t${inquiry.username ?? '(desk)'}\t${handling}\t${delivery}${note}`
}

const checkSender = compileValidator<ErasureQueryInput>(ErasureQuery, 'querystring')

/** `--email`: the sender's address, checked as the API checks it. */
function senderOption(value: string): string {
  const { value: query } = checkSender({ email: value })
  if (!query) throw new UsageError(`--email must be a valid email address, got "${value}"`)
  return query.email
}

/** Who the record of a privacy request names when it was made with the CLI (docs/privacy.md). */
export const CLI_REQUESTER = 'cli'

/** `inquiries list|export|erase` and the organization's webhook (`webhook set|show|clear`). */
export function inquiryCommands(program: Command, cli: Cli): void {
  const inquiries = program.command('inquiries').description('Inquiries received and their delivery')

  inquiries
    .command('list')
    .description(
      'List the inquiries of an organization, newest first, with their delivery status, a page at a time',
    )
    .requiredOption('--org <id>', 'organization id', positiveInt('--org'))
    .option('--kind <kind>', `only this kind: ${KIND_NAMES.join(', ')}`, kindOption)
    .option('--username <username>', 'only inquiries to this expert')
    .option(
      '--status <status>',
      `only inquiries with this status: ${INQUIRY_STATUSES.join(', ')}`,
      statusOption,
    )
    .option(
      '--assignee <person-id>',
      'only inquiries assigned to this person (its id)',
      positiveInt('--assignee'),
    )
    .option('--since <seconds>', 'only inquiries received at or after this unix time', unixSeconds('--since'))
    .option('--until <seconds>', 'only inquiries received before this unix time', unixSeconds('--until'))
    .option(
      '--page-size <n>',
      `inquiries per page, 1 to ${MAX_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE})`,
      pageSize('--page-size'),
    )
    .addOption(new Option('--limit <n>', 'same as --page-size').argParser(pageSize('--limit')).hideHelp())
    .option('--cursor <cursor>', 'continue after a previous page (its next_cursor)', cursorOption)
    .option('--json', 'print one JSON object')
    .action(async (options: ListOptions) => {
      const page = await cli.withDatabase(({ db }) =>
        readInbox(db, options.org, {
          kind: options.kind,
          username: options.username,
          status: options.status,
          assignee: options.assignee,
          since: options.since,
          until: options.until,
          pageSize: options.pageSize ?? options.limit,
          cursor: options.cursor,
        }),
      )
      const list = page.items.map(listed)
      cli.report(options.json, { inquiries: list, next_cursor: page.next_cursor }, () => {
        const lines = list.map(line)
        if (lines.length === 0) lines.push(options.cursor ? 'No more inquiries.' : 'No inquiries.')
        if (page.next_cursor !== null) {
          lines.push(`More inquiries: add --cursor ${page.next_cursor} to see the next page.`)
        }
        return lines.join('\n')
      })
    })

  inquiries
    .command('export')
    .description(
      "Export every inquiry sent from one address (a sender's request to see their data); the export is recorded",
    )
    .requiredOption('--org <id>', 'organization id', positiveInt('--org'))
    .requiredOption('--email <email>', "the sender's address (case-insensitive)", senderOption)
    .option('--json', 'print one JSON object')
    .action(async (options: { org: number; email: string; json?: boolean }) => {
      const items = await cli.withDatabase(async ({ db }) => {
        await requireOrganization(db, options.org)
        return exportSenderData(
          cliWriteContext(db, options.org, 'inquiries export', Date.now()),
          options.email,
          CLI_REQUESTER,
        )
      })
      const list = items.map(listed)
      cli.report(options.json, { inquiries: list }, () =>
        list.length === 0
          ? `No inquiries from ${options.email} in organization ${options.org}.`
          : list.map((inquiry) => `${line(inquiry)}\t${JSON.stringify(inquiry.fields)}`).join('\n'),
      )
    })

  inquiries
    .command('erase')
    .description(
      'Erase the personal data of every inquiry sent from one address (the records stay); the erasure is recorded',
    )
    .requiredOption('--org <id>', 'organization id', positiveInt('--org'))
    .requiredOption('--email <email>', "the sender's address (case-insensitive)", senderOption)
    .option('--json', 'print one JSON object')
    .action(async (options: { org: number; email: string; json?: boolean }) => {
      const erased = await cli.withDatabase(async ({ db }) => {
        await requireOrganization(db, options.org)
        return eraseSenderData(
          cliWriteContext(db, options.org, 'inquiries erase', Date.now()),
          options.email,
          CLI_REQUESTER,
        )
      })
      cli.report(options.json, { org: options.org, erased }, () =>
        erased === 0
          ? `No inquiries from ${options.email} with personal data left in organization ${options.org}.`
          : `Erased the personal data of ${erased} ${erased === 1 ? 'inquiry' : 'inquiries'} from ${options.email} in organization ${options.org}.`,
      )
    })

  const webhook = program
    .command('webhook')
    .description("The organization's webhook: a signed POST for every inquiry (docs/webhooks.md)")

  webhook
    .command('set')
    .description('Set the webhook URL; prints a new signing secret once')
    .requiredOption('--org <id>', 'organization id', positiveInt('--org'))
    .requiredOption('--url <url>', 'an http:// or https:// URL')
    .option('--keep-secret', 'change only the URL and keep the current secret')
    .option('--json', 'print one JSON object')
    .action(async (options: { org: number; url: string; keepSecret?: boolean; json?: boolean }) => {
      const url = options.url.trim()
      if (!isWebhookUrl(url)) throw new UsageError(`--url must be an http:// or https:// URL, got "${url}"`)
      const { secret } = await cli.withDatabase(async ({ db }) => {
        await requireOrganization(db, options.org)
        return explained(() =>
          setWebhook(
            cliWriteContext(db, options.org, 'webhook set', Date.now()),
            { url, keepSecret: options.keepSecret },
            webhookNetwork(cli.config()),
          ),
        )
      })
      cli.report(options.json, { org: options.org, url, ...(secret ? { secret } : {}) }, () =>
        [
          `Webhook of organization ${options.org}: ${url}`,
          ...(secret
            ? [
                `secret: ${secret}`,
                'Store the secret now: it is not shown again. It verifies X-Expertdir-Signature.',
              ]
            : ['The signing secret is unchanged.']),
        ].join('\n'),
      )
    })

  webhook
    .command('show')
    .description('Show the webhook URL (never the secret)')
    .requiredOption('--org <id>', 'organization id', positiveInt('--org'))
    .option('--json', 'print one JSON object')
    .action(async (options: { org: number; json?: boolean }) => {
      const settings = await cli.withDatabase(({ db }) => readWebhook(db, options.org))
      const value = { org: options.org, ...settings, updated_at: iso(settings.updated_at) }
      cli.report(options.json, value, () =>
        settings.url !== null
          ? `Webhook of organization ${options.org}: ${settings.url}`
          : `Organization ${options.org} has no webhook.`,
      )
    })

  webhook
    .command('clear')
    .description('Remove the webhook; later inquiries record the webhook channel as skipped')
    .requiredOption('--org <id>', 'organization id', positiveInt('--org'))
    .option('--json', 'print one JSON object')
    .action(async (options: { org: number; json?: boolean }) => {
      const removed = await cli.withDatabase(({ db }) =>
        clearWebhook(cliWriteContext(db, options.org, 'webhook clear', Date.now())),
      )
      cli.report(options.json, { org: options.org, cleared: removed }, () =>
        removed
          ? `Removed the webhook of organization ${options.org}.`
          : `Organization ${options.org} had no webhook.`,
      )
    })
}
