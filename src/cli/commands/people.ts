import type { Command } from 'commander'
import { cliWriteContext } from '../../audit/write-context.js'
import { ROLES } from '../../auth/roles.js'
import type { Config } from '../../config.js'
import { grantDelegate, revokeDelegate } from '../../experts/delegates.js'
import { findOrganization } from '../../organizations/repository.js'
import { LINK_TTL_MS, linkBase, linkUrl } from '../../people/links.js'
import { findPersonByEmail, findPersonByEmailInOrg, listPeople } from '../../people/repository.js'
import {
  addPerson,
  emailKey,
  issueResetLink,
  reinvitePerson,
  removePerson,
  summarize,
} from '../../people/service.js'
import { type Cli, CliError, explained, positiveInt, UsageError } from '../output.js'

/** The base of the links the CLI prints: the public URL, else the address `serve` listens on. */
export function publicBase(config: Config): string {
  return linkBase(config)
}

/** The whole of standard input, without the final line break: one password. */
async function readPassword(cli: Cli): Promise<string> {
  const { stdin } = cli.io
  if (!stdin) throw new UsageError('--password-stdin: no standard input')
  let text = ''
  for await (const chunk of stdin)
    text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8')
  const password = text.replace(/\r?\n$/, '')
  if (password === '') throw new UsageError('--password-stdin: standard input held no password')
  return password
}

export function peopleCommands(program: Command, cli: Cli): void {
  const people = program.command('people').description('Manage the people who sign in to an organization')

  people
    .command('add')
    .description(
      'Add a person; prints a single-use invitation link (valid 7 days) unless a password is given',
    )
    .requiredOption('--org <id>', 'organization id', positiveInt('--org'))
    .requiredOption('--email <email>', 'sign-in email (unique across the service)')
    .requiredOption('--role <role>', `one of: ${ROLES.join(', ')}`)
    .option('--name <name>', 'display name (default: the part of the email before @)')
    .option('--expert <username>', 'for the expert role: the expert the person is linked to')
    .option('--password-stdin', 'read the password from standard input instead of sending an invitation')
    .option('--json', 'print one JSON object')
    .action(
      async (options: {
        org: number
        email: string
        role: string
        name?: string
        expert?: string
        passwordStdin?: boolean
        json?: boolean
      }) => {
        const password = options.passwordStdin ? await readPassword(cli) : undefined
        const added = await cli.withDatabase(async ({ db }) => {
          if (!(await findOrganization(db, options.org))) throw new CliError(`No organization ${options.org}`)
          return explained(() =>
            addPerson(cliWriteContext(db, options.org, 'people add', Date.now()), {
              email: options.email,
              role: options.role,
              name: options.name,
              expert: options.expert,
              password,
            }),
          )
        })
        const inviteUrl = added.invitation
          ? linkUrl(publicBase(cli.config()), 'invitation', added.invitation)
          : null
        const { person } = added
        cli.report(
          options.json,
          { id: person.id, email: person.email, role: person.role, invite_url: inviteUrl },
          () =>
            [
              `Added ${person.email} (${person.role}${person.expert ? ` of ${person.expert}` : ''}), id ${person.id}.`,
              ...(inviteUrl
                ? [`Invitation link, valid 7 days and usable once: ${inviteUrl}`]
                : ['The password is set: the person can sign in.']),
            ].join('\n'),
        )
      },
    )

  people
    .command('invite')
    .description(
      'Print a new single-use invitation link (valid 7 days) for a person who has not set a password yet; ' +
        'the earlier link stops working. For handing over by hand when no email can reach them.',
    )
    .requiredOption('--email <email>', 'the person to invite again')
    .option('--org <id>', 'organization id: refuses a person of another organization', positiveInt('--org'))
    .option(
      '--reset',
      'for a person who has set a password: print a password-reset link (valid 1 hour) instead',
    )
    .option('--json', 'print one JSON object')
    .action(async (options: { email: string; org?: number; reset?: boolean; json?: boolean }) => {
      const issued = await cli.withDatabase(async ({ db }) => {
        const person = await findPersonByEmail(db, emailKey(options.email))
        const orgId = person ? Number(person.org_id) : undefined
        if (!person || orgId === undefined || (options.org !== undefined && options.org !== orgId)) {
          throw new CliError(
            `No person ${options.email}${options.org === undefined ? '' : ` in organization ${options.org}`}`,
          )
        }
        const hasPassword = person.password_hash !== null
        if (hasPassword && !options.reset) {
          throw new CliError(
            `${person.email} has already set a password: they can reset it from the sign-in page ` +
              '("Forgot password?"), or print a password-reset link for them with --reset.',
          )
        }
        if (!hasPassword && options.reset) {
          throw new CliError(
            `${person.email} has not set a password yet: leave out --reset to print an invitation.`,
          )
        }
        const id = Number(person.id)
        const now = Date.now()
        if (options.reset) {
          const { reset } = await explained(() =>
            issueResetLink(cliWriteContext(db, orgId, 'people invite', now), id),
          )
          return { orgId, id, email: person.email, kind: 'reset' as const, token: reset, now }
        }
        const { invitation } = await explained(() =>
          reinvitePerson(cliWriteContext(db, orgId, 'people invite', now), id),
        )
        return { orgId, id, email: person.email, kind: 'invitation' as const, token: invitation, now }
      })
      const url = linkUrl(publicBase(cli.config()), issued.kind, issued.token)
      const expiresAt = new Date(issued.now + LINK_TTL_MS[issued.kind]).toISOString()
      cli.report(
        options.json,
        {
          id: issued.id,
          email: issued.email,
          org: issued.orgId,
          kind: issued.kind,
          url,
          expires_at: expiresAt,
        },
        () =>
          issued.kind === 'invitation'
            ? `Invitation link for ${issued.email} (organization ${issued.orgId}), valid 7 days and usable once: ${url}`
            : `Password-reset link for ${issued.email} (organization ${issued.orgId}), valid 1 hour and usable once: ${url}`,
      )
    })

  people
    .command('list')
    .description('List the people of an organization')
    .requiredOption('--org <id>', 'organization id', positiveInt('--org'))
    .option('--json', 'print one JSON object')
    .action(async (options: { org: number; json?: boolean }) => {
      const rows = await cli.withDatabase(({ db }) => listPeople(db, options.org))
      const list = rows.map(summarize)
      cli.report(options.json, { people: list }, () =>
        list.length === 0
          ? 'No people.'
          : list
              .map(
                (p) =>
                  `${p.id}\t${p.email}\t${p.role}${p.expert ? `:${p.expert}` : ''}\t${p.has_password ? 'active' : 'invited'}\t${p.name}`,
              )
              .join('\n'),
      )
    })

  people
    .command('remove')
    .description('Remove a person; their sessions end at once (an organization keeps at least one owner)')
    .requiredOption('--org <id>', 'organization id', positiveInt('--org'))
    .requiredOption('--email <email>', 'the person to remove')
    .option('--json', 'print one JSON object')
    .action(async (options: { org: number; email: string; json?: boolean }) => {
      const removed = await cli.withDatabase(async ({ db }) => {
        const person = await findPersonByEmailInOrg(db, options.org, emailKey(options.email))
        if (!person) throw new CliError(`No person ${options.email} in organization ${options.org}`)
        return explained(() =>
          removePerson(cliWriteContext(db, options.org, 'people remove', Date.now()), Number(person.id)),
        )
      })
      cli.report(
        options.json,
        { id: removed.id, email: removed.email, removed: true },
        () => `Removed ${removed.email}`,
      )
    })

  people
    .command('delegate')
    .description(
      "Let a person edit one expert's profile until a time (a delegate, docs/people.md#delegates); again: moves the end",
    )
    .requiredOption('--org <id>', 'organization id', positiveInt('--org'))
    .requiredOption('--expert <username>', 'the expert whose profile the person may edit')
    .requiredOption('--email <email>', 'the person')
    .requiredOption(
      '--until <seconds>',
      'when the grant ends: unix seconds, in the future',
      positiveInt('--until'),
    )
    .option('--json', 'print one JSON object')
    .action(
      async (options: { org: number; expert: string; email: string; until: number; json?: boolean }) => {
        const person = await cli.withDatabase(async ({ db }) => {
          const found = await findPersonByEmailInOrg(db, options.org, emailKey(options.email))
          if (!found) throw new CliError(`No person ${options.email} in organization ${options.org}`)
          const write = cliWriteContext(db, options.org, 'people delegate', Date.now())
          await explained(() =>
            grantDelegate(write, {
              username: options.expert,
              personId: Number(found.id),
              until: options.until,
            }),
          )
          return found
        })
        cli.report(
          options.json,
          { person: Number(person.id), email: person.email, expert: options.expert, until: options.until },
          () =>
            `${person.email} may edit the profile of ${options.expert} until ${new Date(options.until * 1000).toISOString()}.`,
        )
      },
    )

  people
    .command('undelegate')
    .description("End a person's grant on one expert's profile at once")
    .requiredOption('--org <id>', 'organization id', positiveInt('--org'))
    .requiredOption('--expert <username>', 'the expert whose profile the grant is on')
    .requiredOption('--email <email>', 'the person')
    .option('--json', 'print one JSON object')
    .action(async (options: { org: number; expert: string; email: string; json?: boolean }) => {
      const person = await cli.withDatabase(async ({ db }) => {
        const found = await findPersonByEmailInOrg(db, options.org, emailKey(options.email))
        if (!found) throw new CliError(`No person ${options.email} in organization ${options.org}`)
        const write = cliWriteContext(db, options.org, 'people undelegate', Date.now())
        await explained(() => revokeDelegate(write, { username: options.expert, personId: Number(found.id) }))
        return found
      })
      cli.report(
        options.json,
        { person: Number(person.id), email: person.email, expert: options.expert, revoked: true },
        () => `${person.email} may no longer edit the profile of ${options.expert}.`,
      )
    })
}
