import { readFileSync, writeFileSync } from 'node:fs'
import { ClientCreate, PersonCreate, PersonUpdate, WebhookSet } from '../src/admin/schemas.js'
import { ROLES } from '../src/auth/roles.js'
import { DEFAULT_SCOPES, SCOPE_DESCRIPTIONS, SCOPES } from '../src/auth/scopes.js'
import { CONTENT_API } from '../src/content/kinds.js'
import {
  AnswerCreate,
  AnswerUpdate,
  PostCreate,
  PostUpdate,
  QuestionCreate,
  QuestionUpdate,
} from '../src/content/schemas.js'
import { CONTENT_KIND_NAMES } from '../src/db/content-kinds.js'
import { REVIEWER_ROLES } from '../src/drafts/review.js'
import { ExpertCreate, ExpertUpdate } from '../src/experts/schemas.js'
import { notificationDisplay } from '../src/inquiries/notification-schemas.js'
import { inquiryDisplay } from '../src/inquiries/schemas.js'
import { OrganizationUpdate } from '../src/profiles/organization.js'
import {
  NAME_SECTIONS,
  SINGLE_SECTIONS,
  STORED_SECTIONS,
  sectionBody,
} from '../src/profiles/section-fields.js'
import { SsoSettingsUpdate } from '../src/sso/schemas.js'
import { REVIEWABLE_SECTIONS } from '../src/workflow/schemas.js'
import { GATE_LIMITS } from '../src/workflow/settings.js'

/**
 * `npm run client:generate` (with `--check`: `npm run client:check`): writes the dashboard's form
 * schemas, `packages/dashboard/src/generated/schemas.json`, from the same TypeBox tables that validate
 * the API's writes, so that the dashboard's forms and the API cannot disagree.
 */
const FILE = 'packages/dashboard/src/generated/schemas.json'

function shapeOf(section: string): 'single' | 'names' | 'list' {
  if (SINGLE_SECTIONS.has(section)) return 'single'
  return NAME_SECTIONS.has(section) ? 'names' : 'list'
}

const document = {
  expert: { create: ExpertCreate, update: ExpertUpdate },
  organization: { update: OrganizationUpdate },
  sso: { update: SsoSettingsUpdate },
  // Integrations: a client's scopes are chosen from the server's own table, its default ticked.
  client: {
    create: ClientCreate,
    scopes: SCOPES.map((name) => ({
      name,
      description: SCOPE_DESCRIPTIONS[name],
      default: DEFAULT_SCOPES.includes(name),
    })),
  },
  webhook: { set: WebhookSet },
  // The inbox: each field's label, named choices and times; statuses and kinds with their labels.
  inquiry: inquiryDisplay(),
  // Who is emailed about each kind (\`PUT .../notifications\`).
  notifications: notificationDisplay(),
  // The workflow settings' choices: the roles and profile parts a review rule names, the gate's limits;
  // and the roles that review drafts (the dashboard's Review menu entry).
  workflow: { roles: ROLES, sections: REVIEWABLE_SECTIONS, gate: GATE_LIMITS, reviewers: REVIEWER_ROLES },
  person: { create: PersonCreate, update: PersonUpdate },
  // Posts, Q&A items and answers (their HTML fields say so: `x-input: html`).
  content: {
    post: { create: PostCreate, update: PostUpdate },
    question: { create: QuestionCreate, update: QuestionUpdate },
    answer: { create: AnswerCreate, update: AnswerUpdate },
  },
  // Each content kind's path word and the words the screens use for it (src/content/kinds.ts).
  contentKinds: Object.fromEntries(
    CONTENT_KIND_NAMES.map((kind) => {
      const { path, noun, labels } = CONTENT_API[kind]
      return [kind, { path, noun, ...labels }]
    }),
  ),
  sections: STORED_SECTIONS.map((name) => {
    const shape = shapeOf(name)
    return {
      name,
      shape,
      create: sectionBody(name, shape === 'single' ? 'patch' : 'create'),
      update: sectionBody(name, 'patch'),
    }
  }),
}
const text = `${JSON.stringify(document)}\n`

if (process.argv.includes('--check')) {
  let current = ''
  try {
    current = readFileSync(FILE, 'utf8')
  } catch {}
  if (current !== text) {
    console.error(`${FILE} is out of date: run npm run client:generate`)
    process.exit(1)
  }
} else {
  writeFileSync(FILE, text)
}
