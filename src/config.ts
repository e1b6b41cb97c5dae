import { isIP } from 'node:net'
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import { type Static, Type } from 'typebox'

/** OWASP's minimum memory cost for argon2id (19 MiB, with t=2, p=1). */
export const DEFAULT_PASSWORD_MEMORY_KIB = 19_456

/**
 * Runtime configuration, read from the environment. Each setting's `description` (and `x-default-note`,
 * words after its default) is the one operators read: `scripts/config-doc.ts` writes the table of
 * docs/configuration.md from this schema and `ENV_NAMES`, and `npm run lint` fails when that table is stale.
 */
export const ConfigSchema = Type.Object({
  host: Type.String({ default: '127.0.0.1', description: 'address to listen on' }),
  port: Type.Integer({ minimum: 0, maximum: 65535, default: 3000, description: 'port to listen on' }),
  databaseUrl: Type.String({
    default: './data/expertdir.sqlite',
    description: 'SQLite file path, or a `postgres://` URL',
  }),
  logLevel: Type.Union(
    [
      Type.Literal('fatal'),
      Type.Literal('error'),
      Type.Literal('warn'),
      Type.Literal('info'),
      Type.Literal('debug'),
      Type.Literal('trace'),
      Type.Literal('silent'),
    ],
    { default: 'info', description: 'pino level (`silent` turns logs off)' },
  ),
  tokenTtlSeconds: Type.Integer({
    minimum: 1,
    default: 30 * 24 * 3600,
    'x-default-note': '30 days',
    description: 'access token lifetime, in seconds',
  }),
  pgPoolSize: Type.Integer({
    minimum: 1,
    default: 10,
    description:
      "PostgreSQL connections per server process (each `--workers` process has its own pool); keep processes × pool size below the server's `max_connections`",
  }),
  pgConnectTimeoutMs: Type.Integer({
    minimum: 1,
    default: 5000,
    description: 'how long to wait for a PostgreSQL connection before answering 503, in milliseconds',
  }),
  sqliteBusyTimeoutMs: Type.Integer({
    minimum: 0,
    default: 5000,
    description:
      "how long a write waits for SQLite's write lock (held by another process's write) before answering 503 with `Retry-After`, in milliseconds",
  }),
  commitBatchMax: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 64,
    description:
      "most inquiries one group commit (one transaction, one disk flush) takes; PostgreSQL takes at most 8 per batch, on up to half the pool's connections at once; `1`: each inquiry commits alone ([performance.md](performance.md#group-commit))",
  }),
  bodyLimit: Type.Integer({
    minimum: 1024,
    default: 1024 * 1024,
    'x-default-note': '1 MiB',
    description: 'largest accepted request body, in bytes',
  }),
  rateLimitToken: Type.Integer({
    minimum: 0,
    default: 60,
    description: 'token requests per minute per client id and IP (`0`: off)',
  }),
  rateLimitTokenFailures: Type.Integer({
    minimum: 0,
    default: 20,
    description:
      'failed client authentications (token and revocation endpoints) per minute per address, whatever the client id (IPv6: per /64); each costs one scrypt check, so this bounds the CPU an address can spend on them (`0`: off; [security.md](security.md))',
  }),
  rateLimitApi: Type.Integer({
    minimum: 0,
    default: 1200,
    description:
      "API requests per minute per access token (`0`: off). Off (with no `EXPERTDIR_CORS_ORIGINS` and a log level above `info`), a kept read is answered before Fastify, at close to a bare server's cost ([performance.md](performance.md#the-kept-read-lane)): for a site's own server reading profiles on every page view",
  }),
  redisUrl: Type.Optional(
    Type.String({
      description:
        '`redis://...`: rate limits and lock-outs shared by every server process; unset: in-process',
    }),
  ),
  redisPrefix: Type.String({ default: 'expertdir:', description: 'prefix of every Redis key written' }),
  requestTimeoutMs: Type.Integer({
    minimum: 100,
    default: 30_000,
    description: 'a client slower than this (milliseconds) to send its whole request gets 408',
  }),
  smtpUrl: Type.String({
    default: '',
    description:
      "`smtp://user:pass@host:587` or `smtps://...`: the emails the service sends (inquiries to experts, invitation and reset links, notices); unset: none is sent, and an inquiry's email channel is recorded as skipped",
  }),
  mailFrom: Type.String({
    default: 'Expert Directory <no-reply@localhost>',
    description: 'sender of the emails',
  }),
  webhookAllowPrivate: Type.Boolean({
    default: false,
    description:
      '`1`: webhooks may reach every address, this machine and private networks included; off, only public addresses ([webhooks.md](webhooks.md#where-a-webhook-may-point))',
  }),
  webhookAllowNetworks: Type.Array(Type.String({ pattern: '^[0-9A-Fa-f:.]+/[0-9]{1,3}$' }), {
    default: [],
    'x-default-note': 'none',
    description:
      'comma-separated `address/prefix` ranges webhooks may reach although they are not public (`10.20.0.0/16,fd00:1::/64`)',
  }),
  sources: Type.Array(
    Type.Union([
      Type.Literal('orcid'),
      Type.Literal('openalex'),
      Type.Literal('crossref'),
      Type.Literal('pubmed'),
    ]),
    {
      default: ['orcid', 'openalex', 'crossref', 'pubmed'],
      'x-default-note': 'all four',
      description:
        'comma-separated scholarly sources that publications are read from (`orcid,openalex,crossref,pubmed`); `none` turns them all off',
    },
  ),
  sourcesAllowPrivate: Type.Boolean({
    default: false,
    description:
      "`1`: the scholarly sources' addresses may be on this machine or a private network (a mirror, a test server); off, only public addresses, by the same rule as webhooks",
  }),
  sourcesTimeoutMs: Type.Integer({
    minimum: 100,
    default: 30_000,
    description: 'how long a request to a scholarly source may take, in milliseconds',
  }),
  orcidUrl: Type.String({
    pattern: '^https?://',
    default: 'https://pub.orcid.org/v3.0',
    description: "ORCID's public API (the sandbox: `https://pub.sandbox.orcid.org/v3.0`)",
  }),
  orcidTokenUrl: Type.String({
    pattern: '^https?://',
    default: 'https://orcid.org/oauth/token',
    description: "ORCID's token endpoint, used when a client id and secret are set",
  }),
  orcidClientId: Type.Optional(
    Type.String({
      description:
        'ORCID public API client id (with the secret): reads under a registered client; unset: anonymous public reads. The public API is for non-commercial use',
    }),
  ),
  orcidClientSecret: Type.Optional(Type.String({ description: 'ORCID public API client secret' })),
  orcidBatchSize: Type.Integer({
    minimum: 1,
    maximum: 100,
    default: 100,
    description: 'full ORCID works read per request (ORCID allows 100; older documents say 50)',
  }),
  worksLeaseSeconds: Type.Integer({
    minimum: 1,
    default: 600,
    'x-default-note': '10 minutes',
    description:
      "how long a process's hold on an expert's publications refresh lasts unless it renews it (it does, every third of it, while the refresh runs), in seconds: a refresh cut short by a dead process is taken over and started again after at most this much",
  }),
  worksPollSeconds: Type.Integer({
    minimum: 1,
    default: 60,
    description:
      'how often the process that runs background work looks for experts due for a publications refresh, in seconds',
  }),
  schedulePollSeconds: Type.Integer({
    minimum: 1,
    maximum: 60,
    default: 30,
    description:
      'how often the process that runs background work looks for scheduled publishing and unpublishing that is due (experts, posts, Q&A items), in seconds: each is carried out within this much of its time',
  }),
  openalexUrl: Type.String({
    pattern: '^https?://',
    default: 'https://api.openalex.org',
    description: "OpenAlex's API",
  }),
  openalexApiKey: Type.Optional(
    Type.String({
      description: 'OpenAlex API key (free; without one the daily budget is tiny, and the import notes it)',
    }),
  ),
  crossrefUrl: Type.String({
    pattern: '^https?://',
    default: 'https://api.crossref.org',
    description: "Crossref's REST API",
  }),
  crossrefMailto: Type.Optional(
    Type.String({
      description:
        "a contact address sent to Crossref (its faster polite pool) and to PubMed (NCBI's `email`); unset: Crossref's public pool, 1 request a second",
    }),
  ),
  pubmedUrl: Type.String({
    pattern: '^https?://',
    default: 'https://eutils.ncbi.nlm.nih.gov/entrez/eutils',
    description: "NCBI's E-utilities (PubMed)",
  }),
  ncbiApiKey: Type.Optional(
    Type.String({ description: 'NCBI API key: PubMed at 10 requests a second instead of 3' }),
  ),
  embeddingsUrl: Type.Optional(
    Type.String({
      pattern: '^https?://',
      description:
        "base URL of an OpenAI-compatible embeddings API (`https://api.openai.com/v1`, or a server of your own): experts' texts and pasted texts are sent to `{url}/embeddings` and the vectors blend into similar experts and experts for a text ([meaning.md](meaning.md#embeddings-optional)). Unset: off, nothing is sent. Being the operator's choice, it may be on this machine or a private network",
    }),
  ),
  embeddingsModel: Type.Optional(
    Type.String({
      minLength: 1,
      description:
        'the embedding model asked for (`text-embedding-3-small`); required with `EXPERTDIR_EMBEDDINGS_URL`. Changing it embeds every expert again',
    }),
  ),
  embeddingsApiKey: Type.Optional(
    Type.String({
      description: 'sent as `Authorization: Bearer ...` to the embeddings API; never logged',
    }),
  ),
  embeddingsBatchSize: Type.Integer({
    minimum: 1,
    maximum: 2048,
    default: 64,
    description: 'texts sent in one request to the embeddings API (OpenAI takes up to 2,048)',
  }),
  embeddingsTimeoutMs: Type.Integer({
    minimum: 100,
    default: 30_000,
    description:
      'how long the background embedding of experts waits for one reply of the embeddings API, in milliseconds',
  }),
  embeddingsQueryTimeoutMs: Type.Integer({
    minimum: 50,
    default: 2000,
    description:
      'how long experts for a text wait for the embedding of the text, in milliseconds; past it (or on any error) the answer is ranked without embeddings',
  }),
  embeddingsLeaseSeconds: Type.Integer({
    minimum: 1,
    default: 300,
    'x-default-note': '5 minutes',
    description:
      "how long a process's hold on a batch of experts it embeds lasts unless it renews it (it does while the batch runs), in seconds: a batch cut short by a dead process is embedded by another after at most this much",
  }),
  embeddingsPollSeconds: Type.Integer({
    minimum: 1,
    default: 10,
    description:
      'how often the process that runs background work looks for experts whose text changed and embeds them, in seconds',
  }),
  deliveryMaxAttempts: Type.Integer({
    minimum: 1,
    maximum: 100,
    default: 10,
    description: 'attempts per inquiry and channel before a delivery is `failed`',
  }),
  deliveryBackoffMs: Type.Integer({
    minimum: 1,
    default: 30_000,
    description: 'first retry delay, in milliseconds; doubles each attempt, with jitter, capped at 1 hour',
  }),
  deliveryPollMs: Type.Integer({
    minimum: 10,
    default: 1000,
    description: 'how often the delivery worker looks for due deliveries, in milliseconds',
  }),
  deliveryLeaseMs: Type.Integer({
    minimum: 1000,
    default: 100_000,
    description:
      "how long a process's claim on a delivery lasts unless it renews it (it does while sending), in milliseconds: a process that dies mid-delivery delays that delivery by at most this much",
  }),
  inquiryRetentionDays: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 36_500,
      'x-default-note': 'keep',
      description:
        "days an inquiry keeps its sender's personal data; housekeeping then empties the sender's fields and keeps the record (kind, expert, date, status), so counts stay ([privacy.md](privacy.md))",
    }),
  ),
  publicUrl: Type.Optional(
    Type.String({
      pattern: '^https?://[^\\s/?#]+(/[^\\s?#]*)?$',
      description:
        "the service's public base URL (`https://experts.example.org`, no final slash needed): one setting for every URL the service publishes, the OpenAPI document's `servers` and token URL and the OAuth server metadata (`issuer`, endpoints), emailed links, the directory's canonical URLs. Unset, the OpenAPI document names the address the server listens on and the metadata is built from each request's scheme and `Host`. Set it behind a proxy",
    }),
  ),
  trustProxy: Type.String({
    default: '',
    'x-default-note': 'none',
    description:
      "comma-separated addresses or CIDR ranges of the proxies whose `X-Forwarded-For`/`-Proto`/`-Host` are believed; set it behind a load balancer so that limits and lock-outs see the client's address ([deploy.md](deploy.md))",
  }),
  metrics: Type.Boolean({
    default: false,
    description:
      '`1`: serve Prometheus metrics at `GET /metrics` (see [Metrics](workers-and-metrics.md#metrics))',
  }),
  sessionIdleSeconds: Type.Integer({
    minimum: 60,
    default: 2 * 3600,
    'x-default-note': '2 h',
    description: "a signed-in person's session ends after this many seconds unused",
  }),
  sessionMaxSeconds: Type.Integer({
    minimum: 60,
    default: 12 * 3600,
    'x-default-note': '12 h',
    description: 'a session ends this many seconds after sign-in, however used',
  }),
  passwordMemoryKib: Type.Integer({
    minimum: 1024,
    maximum: 4 * 1024 * 1024,
    default: DEFAULT_PASSWORD_MEMORY_KIB,
    'x-default-note': '19 MiB',
    description:
      "memory cost in KiB of a person's argon2id password hash (t=2, p=1; OWASP's minimum by default): raise it if the machines allow; the test suite lowers it to 1024",
  }),
  personTokenTtlSeconds: Type.Integer({
    minimum: 10,
    maximum: 3600,
    default: 600,
    description:
      'lifetime in seconds of the bearer tokens `POST /auth/token` mints for the dashboard (they also end with their session)',
  }),
  corsOrigins: Type.Array(Type.String({ pattern: '^https?://[^\\s/?#]+$' }), {
    default: [],
    'x-default-note': 'none',
    description:
      'comma-separated browser origins allowed to call the API (`https://www.example.edu,http://localhost:5173`); each `scheme://host[:port]`',
  }),
  mediaDir: Type.String({
    default: './data/media',
    description:
      'the folder uploaded photos and documents are stored in (created on start), when no bucket is set',
  }),
  mediaS3Url: Type.Optional(
    Type.String({
      pattern: '^(s3|https?)://',
      description:
        "an S3-compatible bucket instead of the folder (needed by several machines): `s3://bucket[/prefix]` (AWS; credentials and region from the SDK's environment) or `http(s)://[KEY:SECRET@]host[:port]/bucket[/prefix]` (MinIO and others, path-style) ([deploy.md](deploy.md#photos-and-documents))",
    }),
  ),
  readCacheBytes: Type.Integer({
    minimum: 0,
    default: 32 * 1024 * 1024,
    'x-default-note': '32 MiB',
    description:
      'bytes of read responses (profiles, sections, posts, Q&A items, searches) each process keeps, keyed by the versions they were built from, so a write anywhere is seen by the next read ([performance.md](performance.md#kept-reads)); `0` keeps none',
  }),
  uploadMaxBytes: Type.Integer({
    minimum: 1024,
    default: 4 * 1024 * 1024,
    'x-default-note': '4 MiB',
    description: 'largest accepted photo or document upload, in bytes (413 beyond)',
  }),
  imageConcurrency: Type.Integer({
    minimum: 1,
    maximum: 16,
    default: 1,
    description: 'uploaded images each process decodes and encodes at once; more wait in line',
  }),
  imageQueueMax: Type.Integer({
    minimum: 0,
    default: 4,
    description: 'uploads waiting for their turn in each process (503 with `Retry-After` beyond)',
  }),
  rateLimitUploads: Type.Integer({
    minimum: 0,
    default: 30,
    description: 'uploads per minute per access token in each process (429 beyond; `0`: off)',
  }),
  secretKey: Type.Optional(
    Type.String({
      pattern: '^([0-9a-fA-F]{64}|[A-Za-z0-9+/_-]{43}=?)$',
      'x-message': 'must be 64 hex digits or 32 bytes in base64 (openssl rand -hex 32)',
      description:
        "64 hex digits (`openssl rand -hex 32`) or 32 bytes in base64: the key that encrypts (AES-256-GCM) the secrets the service must use later, an organization's OpenID Connect client secret; unset, none can be stored. Keep it with the database's backups; changing it makes the stored secrets unreadable (set them again)",
    }),
  ),
  dnsServers: Type.Array(Type.String({ pattern: '^[0-9A-Fa-f:.\\[\\]]+$' }), {
    default: [],
    'x-default-note': "the system's resolver",
    description:
      "comma-separated DNS servers (`address` or `address:port`) that look up single sign-on domains' TXT records",
  }),
  directoryContactLimit: Type.Integer({
    minimum: 0,
    default: 10,
    description:
      'public directory contact-form submissions per sender address and hour (`0`: no limit; [directory.md](directory.md))',
  }),
  directoryStoryLimit: Type.Integer({
    minimum: 0,
    default: 20,
    description:
      'public directory "describe your story" searches per address and minute (`0`: no limit; [directory.md](directory.md))',
  }),
  directorySitemapUrls: Type.Integer({
    minimum: 1,
    maximum: 50_000,
    default: 50_000,
    description:
      "URLs per directory sitemap file; past it `sitemap.xml` is a sitemap index (the protocol's limit is 50,000)",
  }),
})

export type Config = Static<typeof ConfigSchema>

/** The environment variable of each setting. */
export const ENV_NAMES: Record<keyof Config, string> = {
  host: 'HOST',
  port: 'PORT',
  databaseUrl: 'DATABASE_URL',
  logLevel: 'LOG_LEVEL',
  tokenTtlSeconds: 'EXPERTDIR_TOKEN_TTL_SECONDS',
  pgPoolSize: 'EXPERTDIR_PG_POOL_SIZE',
  pgConnectTimeoutMs: 'EXPERTDIR_PG_CONNECT_TIMEOUT_MS',
  sqliteBusyTimeoutMs: 'EXPERTDIR_SQLITE_BUSY_TIMEOUT_MS',
  commitBatchMax: 'EXPERTDIR_COMMIT_BATCH_MAX',
  bodyLimit: 'EXPERTDIR_BODY_LIMIT',
  rateLimitToken: 'EXPERTDIR_RATE_LIMIT_TOKEN',
  rateLimitTokenFailures: 'EXPERTDIR_RATE_LIMIT_TOKEN_FAILURES',
  rateLimitApi: 'EXPERTDIR_RATE_LIMIT_API',
  redisUrl: 'EXPERTDIR_REDIS_URL',
  redisPrefix: 'EXPERTDIR_REDIS_PREFIX',
  requestTimeoutMs: 'EXPERTDIR_REQUEST_TIMEOUT_MS',
  smtpUrl: 'EXPERTDIR_SMTP_URL',
  mailFrom: 'EXPERTDIR_MAIL_FROM',
  webhookAllowPrivate: 'EXPERTDIR_WEBHOOK_ALLOW_PRIVATE',
  webhookAllowNetworks: 'EXPERTDIR_WEBHOOK_ALLOW_NETWORKS',
  sources: 'EXPERTDIR_SOURCES',
  sourcesAllowPrivate: 'EXPERTDIR_SOURCES_ALLOW_PRIVATE',
  sourcesTimeoutMs: 'EXPERTDIR_SOURCES_TIMEOUT_MS',
  orcidUrl: 'EXPERTDIR_ORCID_URL',
  orcidTokenUrl: 'EXPERTDIR_ORCID_TOKEN_URL',
  orcidClientId: 'EXPERTDIR_ORCID_CLIENT_ID',
  orcidClientSecret: 'EXPERTDIR_ORCID_CLIENT_SECRET',
  orcidBatchSize: 'EXPERTDIR_ORCID_BATCH_SIZE',
  worksLeaseSeconds: 'EXPERTDIR_WORKS_LEASE_SECONDS',
  worksPollSeconds: 'EXPERTDIR_WORKS_POLL_SECONDS',
  schedulePollSeconds: 'EXPERTDIR_SCHEDULE_POLL_SECONDS',
  openalexUrl: 'EXPERTDIR_OPENALEX_URL',
  openalexApiKey: 'EXPERTDIR_OPENALEX_API_KEY',
  crossrefUrl: 'EXPERTDIR_CROSSREF_URL',
  crossrefMailto: 'EXPERTDIR_CROSSREF_MAILTO',
  pubmedUrl: 'EXPERTDIR_PUBMED_URL',
  ncbiApiKey: 'EXPERTDIR_NCBI_API_KEY',
  embeddingsUrl: 'EXPERTDIR_EMBEDDINGS_URL',
  embeddingsModel: 'EXPERTDIR_EMBEDDINGS_MODEL',
  embeddingsApiKey: 'EXPERTDIR_EMBEDDINGS_API_KEY',
  embeddingsBatchSize: 'EXPERTDIR_EMBEDDINGS_BATCH_SIZE',
  embeddingsTimeoutMs: 'EXPERTDIR_EMBEDDINGS_TIMEOUT_MS',
  embeddingsQueryTimeoutMs: 'EXPERTDIR_EMBEDDINGS_QUERY_TIMEOUT_MS',
  embeddingsLeaseSeconds: 'EXPERTDIR_EMBEDDINGS_LEASE_SECONDS',
  embeddingsPollSeconds: 'EXPERTDIR_EMBEDDINGS_POLL_SECONDS',
  deliveryMaxAttempts: 'EXPERTDIR_DELIVERY_MAX_ATTEMPTS',
  deliveryBackoffMs: 'EXPERTDIR_DELIVERY_BACKOFF_MS',
  deliveryPollMs: 'EXPERTDIR_DELIVERY_POLL_MS',
  deliveryLeaseMs: 'EXPERTDIR_DELIVERY_LEASE_MS',
  inquiryRetentionDays: 'EXPERTDIR_INQUIRY_RETENTION_DAYS',
  publicUrl: 'EXPERTDIR_PUBLIC_URL',
  corsOrigins: 'EXPERTDIR_CORS_ORIGINS',
  dnsServers: 'EXPERTDIR_DNS_SERVERS',
  trustProxy: 'EXPERTDIR_TRUST_PROXY',
  metrics: 'EXPERTDIR_METRICS',
  sessionIdleSeconds: 'EXPERTDIR_SESSION_IDLE_SECONDS',
  sessionMaxSeconds: 'EXPERTDIR_SESSION_MAX_SECONDS',
  personTokenTtlSeconds: 'EXPERTDIR_PERSON_TOKEN_TTL_SECONDS',
  passwordMemoryKib: 'EXPERTDIR_PASSWORD_MEMORY_KIB',
  mediaDir: 'EXPERTDIR_MEDIA_DIR',
  mediaS3Url: 'EXPERTDIR_MEDIA_S3_URL',
  uploadMaxBytes: 'EXPERTDIR_UPLOAD_MAX_BYTES',
  imageConcurrency: 'EXPERTDIR_IMAGE_CONCURRENCY',
  imageQueueMax: 'EXPERTDIR_IMAGE_QUEUE_MAX',
  rateLimitUploads: 'EXPERTDIR_RATE_LIMIT_UPLOADS',
  secretKey: 'EXPERTDIR_SECRET_KEY',
  directoryContactLimit: 'EXPERTDIR_DIRECTORY_CONTACT_LIMIT',
  directoryStoryLimit: 'EXPERTDIR_DIRECTORY_STORY_LIMIT',
  directorySitemapUrls: 'EXPERTDIR_DIRECTORY_SITEMAP_URLS',
  readCacheBytes: 'EXPERTDIR_READ_CACHE_BYTES',
}

/** Environment values that are not a single scalar: comma-separated lists, URLs without a final slash. */
function fromEnvironment(key: keyof Config, value: string): unknown {
  if (key === 'dnsServers') {
    return value
      .split(',')
      .map((server) => server.trim())
      .filter((server) => server !== '')
  }
  if (key === 'corsOrigins') {
    return value
      .split(',')
      .map((origin) => origin.trim().replace(/\/+$/, ''))
      .filter((origin) => origin !== '')
  }
  if (key === 'webhookAllowNetworks') {
    return value
      .split(',')
      .map((range) => range.trim())
      .filter((range) => range !== '')
  }
  if (key === 'sources') {
    const names = value
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter((name) => name !== '')
    return names.length === 1 && names[0] === 'none' ? [] : names
  }
  if (
    key === 'publicUrl' ||
    key === 'embeddingsUrl' ||
    key === 'orcidUrl' ||
    key === 'openalexUrl' ||
    key === 'crossrefUrl' ||
    key === 'pubmedUrl'
  )
    return value.trim().replace(/\/+$/, '')
  // A switch is on with `1` (or `true`), off with `0` (or `false`).
  const schema = ConfigSchema.properties[key]
  if ('type' in schema && schema.type === 'boolean' && (value === '1' || value === '0')) return value === '1'
  return value
}

const isConfigKey = (key: string): key is keyof Config => Object.hasOwn(ENV_NAMES, key)

/** Builds a config from defaults, the environment, then explicit overrides; throws a readable error. */
export function loadConfig(overrides: Partial<Config> = {}, env: NodeJS.ProcessEnv = process.env): Config {
  const raw: Record<string, unknown> = {}
  for (const [key, name] of Object.entries(ENV_NAMES)) {
    const value = env[name]
    if (value !== undefined && value !== '' && isConfigKey(key)) raw[key] = fromEnvironment(key, value)
  }
  for (const [key, value] of Object.entries(overrides)) {
    if (value !== undefined) raw[key] = value
  }
  const config = structuredClone(raw)
  const validate = configValidator()
  if (!validate(config)) {
    throw new Error(`Invalid configuration: ${describeProblems(validate.errors ?? []).join('; ')}`)
  }
  if (config.embeddingsUrl !== undefined && config.embeddingsModel === undefined) {
    throw new Error(
      `Invalid configuration: ${ENV_NAMES.embeddingsModel} is required when ${ENV_NAMES.embeddingsUrl} is set`,
    )
  }
  const badRange = config.webhookAllowNetworks.find((range) => parseCidr(range) === undefined)
  if (badRange !== undefined) {
    throw new Error(
      `Invalid configuration: ${ENV_NAMES.webhookAllowNetworks} has "${badRange}", which is no address/prefix range`,
    )
  }
  return config
}

/** An `address/prefix` range (`10.20.0.0/16`, `fd00:1::/64`), or undefined when it is none. */
export function parseCidr(range: string): { address: string; prefix: number; family: 4 | 6 } | undefined {
  const match = /^([^/]+)\/(\d{1,3})$/.exec(range.trim())
  const address = match?.[1] ?? ''
  const family = isIP(address)
  const prefix = Number(match?.[2])
  if ((family !== 4 && family !== 6) || prefix > (family === 4 ? 32 : 128)) return undefined
  return { address, prefix, family }
}

/** One problem per setting, named as in the environment; a choice of words lists the words. */
function describeProblems(errors: ErrorObject[]): string[] {
  const bySetting = new Map<string, { allowed: unknown[]; messages: string[] }>()
  for (const error of errors) {
    const key = error.instancePath.split('/')[1] ?? ''
    const name = isConfigKey(key) ? ENV_NAMES[key] : key
    const problem = bySetting.get(name) ?? { allowed: [], messages: [] }
    bySetting.set(name, problem)
    if (error.keyword === 'const') problem.allowed.push(error.params.allowedValue)
    else if (error.keyword !== 'anyOf') problem.messages.push(error.message ?? 'is invalid')
  }
  return [...bySetting].map(([name, { allowed, messages }]) =>
    allowed.length > 0 ? `${name} must be one of ${allowed.join(', ')}` : `${name} ${messages.join(', ')}`,
  )
}

/**
 * The config's checker: fills defaults and turns the environment's strings into numbers and booleans
 * as it checks. Ajv, which the server loads anyway, rather than TypeBox's value module, which would be
 * loaded for this alone (a few MiB of every process's memory).
 */
let validateConfig: ValidateFunction<Config> | undefined
function configValidator(): ValidateFunction<Config> {
  validateConfig ??= new Ajv({
    allErrors: true,
    coerceTypes: true,
    useDefaults: true,
    strict: false,
  }).compile(ConfigSchema)
  return validateConfig
}

/** The database settings of a config, for `openDatabase`. */
export function databaseOptions(config: Config) {
  return {
    poolSize: config.pgPoolSize,
    connectTimeoutMs: config.pgConnectTimeoutMs,
    busyTimeoutMs: config.sqliteBusyTimeoutMs,
    commitBatchMax: config.commitBatchMax,
  }
}
