import { isIP } from 'node:net'
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import { type Static, Type } from 'typebox'

/** OWASP's minimum memory cost for argon2id (19 MiB, with t=2, p=1). */
export const DEFAULT_PASSWORD_MEMORY_KIB = 19_456

/** Runtime configuration, read from the environment (see README "Configuration"). */
export const ConfigSchema = Type.Object({
  host: Type.String({ default: '127.0.0.1' }),
  port: Type.Integer({ minimum: 0, maximum: 65535, default: 3000 }),
  databaseUrl: Type.String({ default: './data/expertdir.sqlite' }),
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
    { default: 'info' },
  ),
  /** Access token lifetime in seconds (seed: 30 days). */
  tokenTtlSeconds: Type.Integer({ minimum: 1, default: 30 * 24 * 3600 }),
  /** PostgreSQL connection pool size. */
  pgPoolSize: Type.Integer({ minimum: 1, default: 10 }),
  /** PostgreSQL: how long to wait for a new connection before answering 503, in milliseconds. */
  pgConnectTimeoutMs: Type.Integer({ minimum: 1, default: 5000 }),
  /** SQLite: how long a write waits for another connection's lock before answering 503, in milliseconds. */
  sqliteBusyTimeoutMs: Type.Integer({ minimum: 0, default: 5000 }),
  /** Most inquiries one group commit (one transaction, one fsync) takes; 1 commits each on its own. */
  commitBatchMax: Type.Integer({ minimum: 1, maximum: 1000, default: 64 }),
  /** Request body limit in bytes (1 MiB by default). */
  bodyLimit: Type.Integer({ minimum: 1024, default: 1024 * 1024 }),
  /** Token requests per minute per client id and IP; 0 turns the limit off. */
  rateLimitToken: Type.Integer({ minimum: 0, default: 60 }),
  /**
   * Failed client authentications per minute per address (IPv6: per /64), whatever the client id:
   * each costs one scrypt check, so this bounds the CPU an address can spend; 0 turns the limit off.
   */
  rateLimitTokenFailures: Type.Integer({ minimum: 0, default: 20 }),
  /** API requests per minute per access token; 0 turns the limit off. */
  rateLimitApi: Type.Integer({ minimum: 0, default: 1200 }),
  /** Redis for limits and lock-outs shared by several server processes; unset: in-process. */
  redisUrl: Type.Optional(Type.String()),
  /** Prefix of every Redis key this service writes. */
  redisPrefix: Type.String({ default: 'expertdir:' }),
  /** Longest time a client may take to send a whole request, in milliseconds. */
  requestTimeoutMs: Type.Integer({ minimum: 100, default: 30_000 }),
  /** SMTP server for inquiry emails (`smtp://user:pass@host:587`, `smtps://...`); "" means no email channel. */
  smtpUrl: Type.String({ default: '' }),
  /** Sender of inquiry emails. */
  mailFrom: Type.String({ default: 'Expert Directory <no-reply@localhost>' }),
  /**
   * Webhooks may reach every address, private networks and this machine included
   * (EXPERTDIR_WEBHOOK_ALLOW_PRIVATE=1); off: only public addresses (docs/webhooks.md, "Where a webhook may point").
   */
  webhookAllowPrivate: Type.Boolean({ default: false }),
  /** Non-public ranges webhooks may reach nonetheless, as `address/prefix` (`10.20.0.0/16,fd00:1::/64`). */
  webhookAllowNetworks: Type.Array(Type.String({ pattern: '^[0-9A-Fa-f:.]+/[0-9]{1,3}$' }), { default: [] }),
  /** Delivery attempts per inquiry and channel before the delivery is marked failed. */
  deliveryMaxAttempts: Type.Integer({ minimum: 1, maximum: 100, default: 10 }),
  /** First retry delay in milliseconds; doubles on every attempt (with jitter), capped at 1 hour. */
  deliveryBackoffMs: Type.Integer({ minimum: 1, default: 30_000 }),
  /** How often the outbox worker looks for due deliveries, in milliseconds. */
  deliveryPollMs: Type.Integer({ minimum: 10, default: 1000 }),
  /**
   * How long a worker's claim on a delivery lasts unless renewed, in milliseconds: a process that dies
   * mid-delivery delays that delivery by at most this much.
   */
  deliveryLeaseMs: Type.Integer({ minimum: 1000, default: 100_000 }),
  /**
   * Days an inquiry keeps its sender's personal data; housekeeping then removes it and keeps the
   * record (kind, expert, date). Unset: kept until erased (docs/privacy.md).
   */
  inquiryRetentionDays: Type.Optional(Type.Integer({ minimum: 1, maximum: 36_500 })),
  /**
   * The service's public base URL (`https://api.example.org`), for the URLs it publishes (OAuth
   * metadata, OpenAPI `servers` and token URL); unset: taken from the request or the listening
   * address. Set it behind a proxy.
   */
  publicUrl: Type.Optional(Type.String({ pattern: '^https?://[^\\s/?#]+(/[^\\s?#]*)?$' })),
  /**
   * Proxies whose `X-Forwarded-For` / `-Proto` / `-Host` are believed (Fastify's `trustProxy`): a
   * comma-separated list of addresses or CIDR ranges; "" (default) believes none, so behind a proxy
   * every client would look like the proxy to the rate limits and lock-outs.
   */
  trustProxy: Type.String({ default: '' }),
  /** Serve Prometheus metrics at `/metrics` (EXPERTDIR_METRICS=1); off by default. */
  metrics: Type.Boolean({ default: false }),
  /** A signed-in person's session ends after this many seconds without use (CONTRACT §14). */
  sessionIdleSeconds: Type.Integer({ minimum: 60, default: 2 * 3600 }),
  /** A session ends this many seconds after sign-in, however it is used. */
  sessionMaxSeconds: Type.Integer({ minimum: 60, default: 12 * 3600 }),
  /**
   * Memory cost of a person's argon2id password hash in KiB (t=2, p=1): OWASP's minimum of 19 MiB by
   * default; a higher value makes a stolen hash dearer to guess. Lower values are for test runs.
   */
  passwordMemoryKib: Type.Integer({
    minimum: 1024,
    maximum: 4 * 1024 * 1024,
    default: DEFAULT_PASSWORD_MEMORY_KIB,
  }),
  /** Lifetime of the bearer tokens a session mints for the dashboard (POST /auth/token). */
  personTokenTtlSeconds: Type.Integer({ minimum: 10, maximum: 3600, default: 600 }),
  /** Browser origins allowed to call the API (CORS), each `scheme://host[:port]`; none by default. */
  corsOrigins: Type.Array(Type.String({ pattern: '^https?://[^\\s/?#]+$' }), { default: [] }),
  /** The folder photos and documents are stored in (created on start) when no S3 bucket is set. */
  mediaDir: Type.String({ default: './data/media' }),
  /**
   * An S3-compatible bucket for photos and documents instead of the folder (several machines):
   * `s3://bucket[/prefix]` (AWS, credentials and region from the SDK's environment) or
   * `http(s)://[key:secret@]host[:port]/bucket[/prefix]` (another S3-compatible server, path-style).
   */
  mediaS3Url: Type.Optional(Type.String({ pattern: '^(s3|https?)://' })),
  /**
   * Bytes of read responses kept in each process (profiles, sections, posts, Q&A, searches), keyed by
   * the versions they were built from (docs/performance.md, "Kept reads"); 0 keeps none.
   */
  readCacheBytes: Type.Integer({ minimum: 0, default: 32 * 1024 * 1024 }),
  /** Largest accepted upload (photo or document) in bytes (4 MiB by default). */
  uploadMaxBytes: Type.Integer({ minimum: 1024, default: 4 * 1024 * 1024 }),
  /** Uploaded images each process decodes and encodes at once; more wait in line. */
  imageConcurrency: Type.Integer({ minimum: 1, maximum: 16, default: 1 }),
  /** Uploads that may wait for their turn in each process; one more is refused (503, `Retry-After`). */
  imageQueueMax: Type.Integer({ minimum: 0, default: 4 }),
  /** Uploads (photos and documents) per minute per access token, in each process; 0 turns the limit off. */
  rateLimitUploads: Type.Integer({ minimum: 0, default: 30 }),
  /**
   * A 256-bit key (64 hex digits, or 32 bytes in base64) that encrypts the secrets the service must
   * use later, such as an organization's OpenID Connect client secret; unset: none can be stored.
   */
  secretKey: Type.Optional(
    Type.String({
      pattern: '^([0-9a-fA-F]{64}|[A-Za-z0-9+/_-]{43}=?)$',
      'x-message': 'must be 64 hex digits or 32 bytes in base64 (openssl rand -hex 32)',
    }),
  ),
  /**
   * DNS servers that verify single sign-on domains' TXT records, each `address` or `address:port`;
   * none: the system's resolver.
   */
  dnsServers: Type.Array(Type.String({ pattern: '^[0-9A-Fa-f:.\\[\\]]+$' }), { default: [] }),
  /** Contact-form inquiries the public directory accepts per sender address and hour (0: no limit). */
  directoryContactLimit: Type.Integer({ minimum: 0, default: 10 }),
  /** URLs per directory sitemap file; past it the sitemap becomes an index (the protocol's limit is 50,000). */
  directorySitemapUrls: Type.Integer({ minimum: 1, maximum: 50_000, default: 50_000 }),
})

export type Config = Static<typeof ConfigSchema>

const ENV_KEYS: Record<keyof Config, string> = {
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
  if (key === 'publicUrl') return value.trim().replace(/\/+$/, '')
  // A switch is on with `1` (or `true`), off with `0` (or `false`).
  const schema = ConfigSchema.properties[key]
  if ('type' in schema && schema.type === 'boolean' && (value === '1' || value === '0')) return value === '1'
  return value
}

const isConfigKey = (key: string): key is keyof Config => Object.hasOwn(ENV_KEYS, key)

/** Builds a config from defaults, the environment, then explicit overrides; throws a readable error. */
export function loadConfig(overrides: Partial<Config> = {}, env: NodeJS.ProcessEnv = process.env): Config {
  const raw: Record<string, unknown> = {}
  for (const [key, name] of Object.entries(ENV_KEYS)) {
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
  const badRange = config.webhookAllowNetworks.find((range) => parseCidr(range) === undefined)
  if (badRange !== undefined) {
    throw new Error(
      `Invalid configuration: ${ENV_KEYS.webhookAllowNetworks} has "${badRange}", which is no address/prefix range`,
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
    const name = isConfigKey(key) ? ENV_KEYS[key] : key
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
