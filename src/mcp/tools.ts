import fastJsonStringify from 'fast-json-stringify'
import { type Static, type TSchema, Type } from 'typebox'
import type { AppContext } from '../app-context.js'
import type { Scope } from '../auth/scopes.js'
import type { Principal } from '../auth/tokens.js'
import { type Audience, audienceOf, profileVisibleTo } from '../derived/audience.js'
import { ApiError, validationError } from '../errors.js'
import { findRenamedExpert } from '../experts/repository.js'
import { ExpertParams } from '../http/params.js'
import { compileValidator, type Validator } from '../http/validation.js'
import { INQUIRY_KINDS, type InquiryKind, KIND_NAMES } from '../inquiries/kinds.js'
import { IdempotencyHeaders, INQUIRY_SCHEMAS, InquiryCreated, toInquiryInput } from '../inquiries/schemas.js'
import { createInquiry } from '../inquiries/service.js'
import { DEFAULT_LIMIT, LimitQuery, MatchBody, SimilarExperts } from '../meaning/schemas.js'
import { matchExperts, similarExperts } from '../meaning/service.js'
import { Profile, type ProfileData, readProfile } from '../profiles/read.js'
import {
  ExpertSearchQuery,
  ExpertSearchResult,
  QuestionSearchQuery,
  QuestionSearchResult,
  SpotlightSearchQuery,
  SpotlightSearchResult,
} from '../search/schemas.js'
import { searchExperts, searchQuestions, searchSpotlights } from '../search/service.js'
import { withMediaBase } from '../storage/keys.js'
import { isObject } from '../validation/guards.js'
import { type ObjectJsonSchema, toolSchema } from './json-schema.js'
import { summarizeExperts, summarizeSearch } from './summaries.js'

/** Who calls a tool and with what: the app's infrastructure and the bearer token's principal. */
export interface ToolCall {
  context: AppContext
  principal: Principal
  /** The address the answer's media references are completed with (src/media/base.ts). */
  mediaBase: string
}

/** A tool as `tools/list` describes it (MCP's `Tool`). */
export interface ToolDefinition {
  name: string
  title: string
  description: string
  inputSchema: ObjectJsonSchema
  outputSchema: ObjectJsonSchema
  annotations: {
    readOnlyHint: boolean
    destructiveHint: boolean
    idempotentHint: boolean
    openWorldHint: boolean
  }
}

/** One tool of the MCP server: its definition, the scope it needs, and how it runs. */
export interface McpTool {
  definition: ToolDefinition
  /** A token needs this scope (or one that grants it, as `read` grants `read:public`) to call the tool. */
  scope: Scope
  /**
   * Validates `args` as the API validates a request (400 `validation_failed` with every offending
   * field), runs the service the API's route runs, and returns the result as the route's response
   * schema serializes it: the JSON text and the object it reads as. Throws an ApiError on refusals
   * (404, 403 `insufficient_scope`, 409).
   */
  call(call: ToolCall, args: unknown): Promise<ToolResult>
}

/** A tool's answer: `structuredContent`, and the same as JSON text. */
export interface ToolResult {
  text: string
  structured: Record<string, unknown>
  /** The answer in sentences a model reads well, given before the JSON when the tool writes one. */
  summary?: string
}

interface ToolSpec<Args, Result extends object = object> {
  name: string
  title: string
  description: string
  scope: Scope
  readOnly: boolean
  /** The published input schema; `validate` checks arguments against it. */
  input: TSchema
  validate: Validator<Args>
  output: TSchema
  run: (call: ToolCall, args: Args) => Promise<Result>
  /** The result in plain sentences, beside the JSON (media addresses are left out of it). */
  summarize?: (result: Result, args: Args) => string
}

/** The validator of a tool's arguments: the API's own, for a JSON body (values already typed). */
const argumentsOf = <T extends TSchema>(schema: T) => compileValidator<Static<T>>(schema, 'arguments')

/** A tool whose arguments are one of the API's request schemas, validated as the API validates it. */
function schemaTool<Input extends TSchema, Result extends object = object>(
  spec: Omit<ToolSpec<Static<Input>, Result>, 'input' | 'validate'> & { input: Input },
): McpTool {
  return defineTool({ ...spec, validate: argumentsOf(spec.input) })
}

function defineTool<Args, Result extends object = object>(spec: ToolSpec<Args, Result>): McpTool {
  const { validate } = spec
  // Fastify's own serializer, compiled once from the route's response schema: nothing the schema does
  // not list goes out, and values take the schema's types, exactly as in the API's `data`.
  const serialize = fastJsonStringify(spec.output)
  return {
    definition: {
      name: spec.name,
      title: spec.title,
      description: spec.description,
      inputSchema: toolSchema(spec.input),
      outputSchema: toolSchema(spec.output),
      annotations: {
        readOnlyHint: spec.readOnly,
        destructiveHint: false,
        idempotentHint: spec.readOnly,
        openWorldHint: !spec.readOnly,
      },
    },
    scope: spec.scope,
    async call(call, args) {
      const checked = validate(args)
      if (checked.error) throw checked.error
      const result = await spec.run(call, checked.value)
      const text = withMediaBase(Buffer.from(serialize(result)), call.mediaBase).toString()
      const structured: unknown = JSON.parse(text)
      if (!isObject(structured)) throw new Error(`${spec.name} returned no object`)
      const summary = spec.summarize?.(result, checked.value)
      return summary === undefined ? { text, structured } : { text, structured, summary }
    },
  }
}

const searchTarget = ({ context }: ToolCall) => ({ db: context.db, dialect: context.database.dialect })
const audience = ({ principal }: ToolCall): Audience => audienceOf(principal.scopes)

const PUBLIC_NOTE =
  'A token with read:public (and not read) sees only published, non-private experts and published items; ' +
  'asking it for other status or access values is refused.'

const searchExpertsTool = schemaTool({
  name: 'search_experts',
  title: 'Search experts',
  description:
    "Searches the organization's experts by free text (names, job title, topics, biography, ...) and " +
    'facets (countries, topics, industries, categories, tags, interview_languages), with paging. ' +
    'media_available=1 keeps only the experts available for media interviews now. Returns the matching ' +
    'experts, each with its media availability (until when, interview languages, remote or studio), the ' +
    `exact total and facet counts. Use get_expert with a username for the full profile. ${PUBLIC_NOTE}`,
  scope: 'read:public',
  readOnly: true,
  input: ExpertSearchQuery,
  output: ExpertSearchResult,
  run: (call, input) => searchExperts(searchTarget(call), call.principal.orgId, input, audience(call)),
  summarize: (result) => summarizeSearch(result),
})

const GetExpertArguments = Type.Object(
  { username: ExpertParams.properties.username },
  { additionalProperties: false, title: 'GetExpertArguments' },
)

/**
 * `read` for the expert under `username`, or under the name a renamed expert has now (the API's 308);
 * the first not_found stands when there is no such rename the caller may see.
 */
async function underCurrentName<T>(
  call: ToolCall,
  username: string,
  read: (username: string) => Promise<T>,
): Promise<T> {
  try {
    return await read(username)
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== 'not_found') throw error
    const renamed = await findRenamedExpert(call.context.db, call.principal.orgId, username)
    if (!renamed || !profileVisibleTo(audience(call), renamed)) throw error
    return read(renamed.username)
  }
}

const readExpertProfile = (call: ToolCall, username: string): Promise<ProfileData> =>
  underCurrentName(call, username, (current) =>
    readProfile(call.context.db, call.principal.orgId, current, 'expert', audience(call)),
  )

const getExpertTool = schemaTool({
  name: 'get_expert',
  title: 'Get an expert profile',
  description:
    "An expert's full profile by username (as search_experts returns it): account, biography, tagline, " +
    'topics, education, publications, media appearances, contact links and every other section; an empty ' +
    `section is []. An old username of a renamed expert gives the expert's current profile. ${PUBLIC_NOTE}`,
  scope: 'read:public',
  readOnly: true,
  input: GetExpertArguments,
  output: Profile,
  run: (call, input) => readExpertProfile(call, input.username),
})

const searchPostsTool = schemaTool({
  name: 'search_posts',
  title: 'Search posts',
  description:
    "Searches the organization's posts (news and articles, called spotlights in the API) by text, tags, " +
    `tagged experts and date, newest first unless the text ranks them. ${PUBLIC_NOTE}`,
  scope: 'read:public',
  readOnly: true,
  input: SpotlightSearchQuery,
  output: SpotlightSearchResult,
  run: (call, input) => searchSpotlights(searchTarget(call), call.principal.orgId, input, audience(call)),
})

const searchQuestionsTool = schemaTool({
  name: 'search_questions',
  title: 'Search questions and answers',
  description:
    "Searches the organization's Q&A items (questions its experts answered) by text, tags and answering " +
    `experts. ${PUBLIC_NOTE}`,
  scope: 'read:public',
  readOnly: true,
  input: QuestionSearchQuery,
  output: QuestionSearchResult,
  run: (call, input) => searchQuestions(searchTarget(call), call.principal.orgId, input, audience(call)),
})

const findExpertsForTextTool = schemaTool({
  name: 'find_experts_for_text',
  title: 'Find experts for a text',
  description:
    'Finds the experts best placed to speak to a text: a press release, an abstract, a story idea or a ' +
    "journalist's question (up to 20,000 characters), by meaning rather than exact words: the text's " +
    'most telling words, the concepts it names and the concepts of works it cites by DOI or PMID. ' +
    'Returns the experts best first, each with a score and the reasons (shared concepts and words). ' +
    `Use get_expert with a username for the full profile. ${PUBLIC_NOTE}`,
  scope: 'read:public',
  readOnly: true,
  input: MatchBody,
  output: SimilarExperts,
  run: async (call, input) => ({
    experts: await matchExperts(
      call.context.db,
      call.principal.orgId,
      input.text,
      audience(call),
      input.limit ?? DEFAULT_LIMIT,
      call.context.embeddings,
    ),
  }),
  summarize: ({ experts }) => summarizeExperts(experts, 'for the text'),
})

const SimilarExpertsArguments = Type.Object(
  { username: ExpertParams.properties.username, limit: Type.Optional(LimitQuery.properties.limit) },
  { additionalProperties: false, title: 'SimilarExpertsArguments' },
)

const similarExpertsTool = schemaTool({
  name: 'similar_experts',
  title: 'Find similar experts',
  description:
    'The experts most like one expert (by username, as search_experts returns it): shared concepts, ' +
    'the words of their profiles and works, co-authored works, and a little for the same department. ' +
    'Useful when that expert is unavailable. Returns them best first, each with a score and the reasons. ' +
    PUBLIC_NOTE,
  scope: 'read:public',
  readOnly: true,
  input: SimilarExpertsArguments,
  output: SimilarExperts,
  run: async (call, input) => ({
    experts: await underCurrentName(call, input.username, (current) =>
      similarExperts(
        call.context.db,
        call.principal.orgId,
        current,
        audience(call),
        input.limit ?? DEFAULT_LIMIT,
        call.context.embeddings,
      ),
    ),
  }),
  summarize: ({ experts }, { username }) => summarizeExperts(experts, `similar to ${username}`),
})

const IdempotencyKey = IdempotencyHeaders.properties['idempotency-key']

/** What `send_inquiry` takes: the kind, that kind's request body (the API's schema), a retry key. */
const SendInquiryArguments = Type.Object(
  {
    kind: Type.Enum(KIND_NAMES, {
      description: `The kind of inquiry: ${KIND_NAMES.map((kind) => `${kind} (${INQUIRY_KINDS[kind].summary.toLowerCase()})`).join('; ')}`,
    }),
    inquiry: Type.Union(
      KIND_NAMES.map((kind) => INQUIRY_SCHEMAS[kind]),
      {
        description:
          'The inquiry: the fields of the body schema of its kind (the schema titled after the kind)',
      },
    ),
    idempotency_key: Type.Optional(IdempotencyKey),
  },
  { additionalProperties: false, title: 'SendInquiryArguments' },
)

/**
 * The arguments' own check: `kind` and the key first, then `inquiry` against its kind's schema alone, so
 * that the messages name the fields of that kind rather than the failures of every other kind.
 */
const checkEnvelope = argumentsOf(
  Type.Object(
    {
      kind: SendInquiryArguments.properties.kind,
      inquiry: Type.Object({}, { additionalProperties: true }),
      idempotency_key: SendInquiryArguments.properties.idempotency_key,
    },
    { additionalProperties: false },
  ),
)
const checkInquiry = Object.fromEntries(
  KIND_NAMES.map((kind) => [
    kind,
    compileValidator<Record<string, unknown>>(INQUIRY_SCHEMAS[kind], 'inquiry'),
  ]),
)

interface SendInquiryInput {
  kind: InquiryKind
  inquiry: Record<string, unknown>
  idempotency_key?: string
}

const validateSendInquiry: Validator<SendInquiryInput> = (args) => {
  const envelope = checkEnvelope(args)
  if (envelope.error) return envelope
  const { kind, idempotency_key } = envelope.value
  const inquiry = checkInquiry[kind]?.(Reflect.get(envelope.value, 'inquiry'))
  if (!inquiry) throw new Error(`No validator for inquiry kind ${kind}`)
  if (inquiry.error) {
    const details = (inquiry.error.details ?? []).map((detail) => ({
      ...detail,
      field: detail.field === 'inquiry' ? 'inquiry' : `inquiry.${detail.field}`,
    }))
    return { error: validationError(details) }
  }
  return {
    value: { kind, inquiry: inquiry.value, ...(idempotency_key === undefined ? {} : { idempotency_key }) },
  }
}

const SendInquiryResult = Type.Object(
  {
    ...InquiryCreated.properties,
    replayed: Type.Boolean({
      description: 'True when idempotency_key matched an earlier call: nothing new was sent',
    }),
  },
  { title: 'SendInquiryResult' },
)

const sendInquiryTool = defineTool({
  name: 'send_inquiry',
  title: 'Send an inquiry',
  description:
    'Sends an inquiry to an expert (by username) or, for the general and media kinds without username, ' +
    "to the organization's inquiry desk; it is stored durably and the recipients are notified by email. " +
    'Send it only when the user asked to contact the expert, with their own name, email and message. ' +
    'Give an idempotency_key (a fresh UUID per inquiry) and reuse it when retrying: the retry returns the ' +
    'first id instead of sending twice.',
  scope: 'inquiries:create',
  readOnly: false,
  input: SendInquiryArguments,
  validate: validateSendInquiry,
  output: SendInquiryResult,
  run: ({ context, principal }, { kind, inquiry, idempotency_key }) =>
    createInquiry(
      context.database,
      principal.orgId,
      toInquiryInput(kind, inquiry),
      idempotency_key,
      context.now(),
    ),
})

/** The tools of CONTRACT §18, in the order `tools/list` gives them. */
export const TOOLS: readonly McpTool[] = [
  searchExpertsTool,
  getExpertTool,
  searchPostsTool,
  searchQuestionsTool,
  findExpertsForTextTool,
  similarExpertsTool,
  sendInquiryTool,
]
