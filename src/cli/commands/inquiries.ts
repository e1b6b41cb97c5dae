import type { Command } from 'commander'
import { deleteWebhook, findWebhook, saveWebhook } from '../../delivery/repository.js'
import { generateWebhookSecret, isWebhookUrl } from '../../delivery/webhook.js'
import { listInquiries } from '../../inquiries/repository.js'
import { findOrganization } from '../../organizations/repository.js'
import { CliError, type GlobalOptions, positiveInt, report, UsageError, withDatabase } from '../output.js'

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

/** `inquiries list` and the organization's webhook (`webhook set|show|clear`). */
export function inquiryCommands(program: Command, globals: () => GlobalOptions): void {
  const inquiries = program.command('inquiries').description('Inquiries received and their delivery')

  inquiries
    .command('list')
    .description('List the newest inquiries of an organization with their delivery status')
    .requiredOption('--org <id>', 'organization id', positiveInt('--org'))
    .option('--limit <n>', 'how many, newest first (default 100)', positiveInt('--limit'), 100)
    .option('--json', 'print one JSON object')
    .action(async (options: { org: number; limit: number; json?: boolean }) => {
      const rows = await withDatabase(globals(), ({ db }) => listInquiries(db, options.org, options.limit))
      const list = rows.map(({ inquiry, deliveries }) => ({
        id: inquiry.id,
        kind: inquiry.kind,
        username: inquiry.username,
        created_at: iso(inquiry.created_at),
        delivery: deliveries.map((d) => ({
          channel: d.channel,
          status: d.status,
          attempts: d.attempts,
          last_error: d.last_error,
          next_attempt_at: iso(d.next_attempt_at),
        })),
      }))
      report(options.json, { inquiries: list }, () =>
        list.length === 0
          ? 'No inquiries.'
          : list
              .map((inquiry) => {
                const delivery = inquiry.delivery
                  .map((d) => `${d.channel} ${d.status}${d.attempts > 1 ? ` (${d.attempts} attempts)` : ''}`)
                  .join(', ')
                return `${inquiry.id}\t${inquiry.created_at}\t${inquiry.kind}\t${inquiry.username}\t${delivery}`
              })
              .join('\n'),
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
      const secret = await withDatabase(globals(), async ({ db }) => {
        if (!(await findOrganization(db, options.org))) throw new CliError(`No organization ${options.org}`)
        const current = await findWebhook(db, options.org)
        if (options.keepSecret && !current)
          throw new CliError('There is no secret to keep: run without --keep-secret')
        const secret = options.keepSecret && current ? current.secret : generateWebhookSecret()
        await saveWebhook(db, options.org, url, secret, Date.now())
        return options.keepSecret ? undefined : secret
      })
      report(options.json, { org: options.org, url, ...(secret ? { secret } : {}) }, () =>
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
      const row = await withDatabase(globals(), ({ db }) => findWebhook(db, options.org))
      const value = row
        ? { org: options.org, url: row.url, configured: true, updated_at: iso(row.updated_at) }
        : { org: options.org, url: null, configured: false, updated_at: null }
      report(options.json, value, () =>
        row
          ? `Webhook of organization ${options.org}: ${row.url}`
          : `Organization ${options.org} has no webhook.`,
      )
    })

  webhook
    .command('clear')
    .description('Remove the webhook; later inquiries record the webhook channel as skipped')
    .requiredOption('--org <id>', 'organization id', positiveInt('--org'))
    .option('--json', 'print one JSON object')
    .action(async (options: { org: number; json?: boolean }) => {
      const removed = await withDatabase(globals(), ({ db }) => deleteWebhook(db, options.org))
      report(options.json, { org: options.org, cleared: removed }, () =>
        removed
          ? `Removed the webhook of organization ${options.org}.`
          : `Organization ${options.org} had no webhook.`,
      )
    })
}
