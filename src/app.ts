import Fastify, { type FastifyInstance, LogController, type RouteOptions } from 'fastify'
import type { Redis } from 'ioredis'
import { adminRoutes } from './admin/routes.js'
import type { AppContext } from './app-context.js'
import {
  databaseDelegation,
  databaseInquiryRecipient,
  databasePrincipals,
  requireBearer,
} from './auth/bearer.js'
import type { AuthContext } from './auth/context.js'
import { createFailureLimit } from './auth/failure-limit.js'
import { createLockout } from './auth/lockout.js'
import { metadataRoutes } from './auth/metadata-route.js'
import { tokenRoutes } from './auth/token-route.js'
import type { Config } from './config.js'
import { publishingRoutes } from './content/publishing-routes.js'
import { contentRoutes } from './content/routes.js'
import { contentVersionRoutes } from './content/version-routes.js'
import { dashboardRoutes } from './dashboard/routes.js'
import type { Database } from './db/database.js'
import { createContactLimit, createStoryLimit } from './directory/address-limits.js'
import { directoryRoutes } from './directory/routes.js'
import { draftRoutes } from './drafts/routes.js'
import { expertAvatarRoutes } from './experts/avatar-routes.js'
import { expertDelegateRoutes } from './experts/delegates-routes.js'
import { expertEditorialRoutes } from './experts/editorial-routes.js'
import { expertMeaningRoutes } from './experts/meaning-routes.js'
import { redirectRenamedExperts } from './experts/redirects.js'
import { expertRoutes } from './experts/routes.js'
import { registerBodyParsers } from './http/body-parsers.js'
import { logsInfo, methodNotAllowed, registerConventions, requestIdOf } from './http/conventions.js'
import { registerCors } from './http/cors.js'
import { clientErrorHandler, frameworkErrors, registerErrorHandling } from './http/error-handler.js'
import { registerReadEtags } from './http/etag.js'
import { protocolReader } from './http/protocol.js'
import { perMinute, registerRateLimiting } from './http/rate-limits.js'
import { requestLoggers } from './http/request-logger.js'
import { securityHeaders } from './http/security-headers.js'
import { serializerCompiler } from './http/serialization.js'
import { parseQuery } from './http/url-encoding.js'
import { validatorCompiler } from './http/validation.js'
import { importRoutes } from './import/routes.js'
import { inquiryRoutes } from './inquiries/routes.js'
import { KeptBodies } from './kept-reads/kept-bodies.js'
import { KeptReadLane, type RequestListener } from './kept-reads/kept-read-lane.js'
import { KeptRoutes, registerKeptReads } from './kept-reads/kept-reads.js'
import { memoryCounters } from './limits/memory-counters.js'
import { redisCounters } from './limits/redis-counters.js'
import { mcpRoutes } from './mcp/routes.js'
import { type Embeddings, embeddingsFrom } from './meaning/embeddings/index.js'
import { registerMediaBase } from './media/base.js'
import { mediaRoutes, uploadRoutes } from './media/routes.js'
import { createUploads } from './media/uploads.js'
import { organizationRoutes } from './organizations/routes.js'
import { createLinkMailer, createNoticeMailer } from './people/mail.js'
import { usePasswordMemoryCost } from './people/passwords.js'
import { searchRoutes } from './search/routes.js'
import { withPersonTokens } from './sessions/principals.js'
import { createResetLimit } from './sessions/reset-limit.js'
import { ADDRESS_SIGN_IN_FAILURES, type SessionContext, sessionRoutes } from './sessions/routes.js'
import { txtResolver } from './sso/domains.js'
import { passwordsAllowed } from './sso/repository.js'
import { type SsoContext, ssoRoutes } from './sso/routes.js'
import { createSecretBox } from './sso/secret-box.js'
import { ssoSettingsRoutes } from './sso/settings-routes.js'
import { staffRoutes } from './staff/routes.js'
import { openStorage } from './storage/open.js'
import type { MediaStorage } from './storage/storage.js'
import { createMetrics, httpObserverOf, type Metrics, registerMetrics } from './system/metrics.js'
import { registerOpenApi } from './system/openapi.js'
import { healthRoutes } from './system/routes.js'
import { topicRoutes } from './topics/routes.js'
import { workflowRoutes } from './workflow/routes.js'
import { createRefreshLimit } from './works/refresh-limit.js'
import { worksRoutes } from './works/routes.js'
import { createWorksSchedule, scheduleTiming, type WorksSchedule } from './works/schedule.js'
import { sourcesFrom } from './works/sources/index.js'
import type { Source } from './works/sources/source.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The lane answering kept reads before Fastify, when installed (src/kept-reads/kept-read-lane.ts). */
    keptReadLane?: KeptReadLane
    /** The works refreshes of this process: refresh now, and the schedule a background process starts. */
    worksSchedule: WorksSchedule
    /** The optional embeddings (absent when not configured): the loop a background process starts. */
    embeddings: Embeddings | undefined
  }
}

export interface AppOptions {
  config: Config
  database: Database
  /** Clock in unix milliseconds (tests move it). */
  now?: () => number
  /** A pino destination stream for the request log (tests capture it). */
  logStream?: NodeJS.WritableStream
  /** Told of every route as it is registered (the security suite checks that each is covered). */
  onRoute?: (route: RouteOptions) => void
  /** Prometheus metrics of this process; when absent and `config.metrics` is on, the app makes its own. */
  metrics?: Metrics
  /** The media storage; when absent the app opens the one the config names and closes it with itself. */
  storage?: MediaStorage
  /** The built dashboard's folder (default: packages/dashboard/dist of this checkout). */
  dashboardDir?: string
  /** The scholarly sources the works importer asks (CONTRACT §19); none when absent. */
  workSources?: readonly Source[]
}

/** A Redis connection that fails fast (limits fail open) and closes with the app; ioredis is loaded only then. */
async function connectRedis(url: string, app: FastifyInstance): Promise<Redis> {
  const { Redis } = await import('ioredis')
  const redis = new Redis(url, { connectTimeout: 1000, maxRetriesPerRequest: 1, lazyConnect: false })
  redis.on('error', (error) => app.log.warn({ err: error }, 'redis error'))
  app.addHook('onClose', async () => {
    await redis.quit().catch(() => redis.disconnect())
  })
  return redis
}

/** Builds the ready-to-listen app. The caller owns the database and closes it after the app. */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config, database } = options
  const now = options.now ?? Date.now
  usePasswordMemoryCost(config.passwordMemoryKib)
  const app = Fastify({
    logger: {
      level: config.logLevel,
      ...(options.logStream ? { stream: options.logStream } : {}),
      // Defence in depth: our log lines carry no headers or bodies, but never let credentials through.
      redact: [
        'req.headers.authorization',
        'headers.authorization',
        'req.headers.cookie',
        'headers.cookie',
        '*.client_secret',
        '*.access_token',
        '*.password',
        '*.current_password',
        '*.new_password',
      ],
    },
    // One line per request is written by our onResponse hook instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: requestLoggers(logsInfo(config.logLevel)),
    genReqId: (request) => requestIdOf(request.headers['x-request-id']),
    bodyLimit: config.bodyLimit,
    requestTimeout: config.requestTimeoutMs,
    // Node checks for timed-out requests every 30 s by default; check often enough to honour the limit.
    http: {
      connectionsCheckingInterval: Math.min(1000, config.requestTimeoutMs),
      headersTimeout: Math.min(60_000, config.requestTimeoutMs),
    },
    clientErrorHandler,
    frameworkErrors,
    return503OnClosing: false,
    exposeHeadRoutes: true,
    routerOptions: { querystringParser: parseQuery },
    ...(config.trustProxy ? { trustProxy: config.trustProxy } : {}),
  })
  app.setValidatorCompiler(validatorCompiler)
  app.setSerializerCompiler(serializerCompiler)
  const { onRoute } = options
  if (onRoute) app.addHook('onRoute', (route) => onRoute(route))
  const redis = config.redisUrl ? await connectRedis(config.redisUrl, app) : undefined
  // The counts under every lock-out and limit but the API's rate limits (@fastify/rate-limit's own store).
  const counters = redis
    ? redisCounters(redis, config.redisPrefix, (error, name) =>
        app.log.warn({ err: error, counters: name }, 'counter store error'),
      )
    : memoryCounters(now)
  const storage = options.storage ?? openStorage(config)
  if (!options.storage) app.addHook('onClose', () => storage.close())
  const embeddings = embeddingsFrom(config, {
    db: database.db,
    dialect: database.dialect,
    now,
    log: app.log,
  })
  app.decorate('embeddings', embeddings)
  if (embeddings) app.addHook('onClose', () => embeddings.loop.stop())
  const context: AppContext = {
    config,
    database,
    db: database.db,
    now,
    storage,
    embeddings: embeddings?.ranking,
  }
  const auth: AuthContext = {
    ...context,
    principals: withPersonTokens(databasePrincipals({ database, now }), {
      database,
      now,
      lifetimes: { idleMs: config.sessionIdleSeconds * 1000, maxMs: config.sessionMaxSeconds * 1000 },
    }),
    inquiryRecipient: databaseInquiryRecipient(database),
    delegation: databaseDelegation(database, now),
    lockout: createLockout(counters),
    authFailures: createFailureLimit(counters, config.rateLimitTokenFailures),
  }

  const sessions: SessionContext = {
    ...context,
    accountLockout: createLockout(counters),
    addressLockout: createLockout(counters, ADDRESS_SIGN_IN_FAILURES),
    mailer: createLinkMailer(config.smtpUrl, config.mailFrom, (error) =>
      app.log.warn({ err: error }, 'sign-in link email failed'),
    ),
    resetLimit: createResetLimit(counters),
    passwordsAllowed: (orgId) => passwordsAllowed(database.db, orgId),
  }
  app.addHook('onClose', async () => sessions.mailer.close())
  const ssoMailer = createNoticeMailer(config.smtpUrl, config.mailFrom, (error) =>
    app.log.warn({ err: error }, 'single sign-on email failed'),
  )
  app.addHook('onClose', async () => ssoMailer.close())
  const sso: SsoContext = {
    ...context,
    secretBox: config.secretKey ? createSecretBox(config.secretKey) : undefined,
    notices: {
      mailer: ssoMailer,
      publicUrl: config.publicUrl,
      onError: (error) => app.log.error({ err: error }, 'single sign-on notice failed'),
    },
    resolveTxt: txtResolver(config.dnsServers),
  }

  const worksSchedule = createWorksSchedule({
    db: database.db,
    dialect: database.dialect,
    sources: options.workSources ?? sourcesFrom(config),
    ...scheduleTiming(config),
    now,
    log: app.log,
  })
  app.decorate('worksSchedule', worksSchedule)
  app.addHook('onClose', () => worksSchedule.stop())

  const conventions = registerConventions(app, securityHeaders())
  const metrics =
    options.metrics ?? (config.metrics ? createMetrics({ database, http: true, outbox: false }) : undefined)
  if (metrics) registerMetrics(app, metrics)
  registerErrorHandling(app, config.bodyLimit)
  registerBodyParsers(app)
  const fallback = methodNotAllowed(app)
  await registerCors(app, config.corsOrigins)
  await registerRateLimiting(app, config, redis)
  await registerOpenApi(app, config)

  await app.register(async (open) => {
    await healthRoutes(open, context)
    await tokenRoutes(open, auth)
    await metadataRoutes(open, context)
    await mediaRoutes(open, storage)
  })
  await app.register(async (signIn) => {
    await sessionRoutes(signIn, sessions)
    await ssoRoutes(signIn, sso)
  })
  await dashboardRoutes(app, options.dashboardDir)
  // One allowance per token, whether it calls the API or the MCP server (one counter store).
  const tokenLimit = perMinute(app, config.rateLimitApi, (request) => `api:${request.principal.tokenHash}`)
  await app.register(async (assistants) => mcpRoutes(assistants, auth, tokenLimit))
  await app.register(async (directory) =>
    directoryRoutes(directory, context, {
      contactLimit: createContactLimit(counters, config.directoryContactLimit),
      storyLimit: createStoryLimit(counters, config.directoryStoryLimit),
    }),
  )
  const keptBodies = new KeptBodies(config.readCacheBytes)
  const keptRoutes = new KeptRoutes(config.readCacheBytes / KEPT_ROUTES_SHARE)
  await app.register(async (protectedScope) => {
    requireBearer(protectedScope, auth)
    if (tokenLimit) protectedScope.addHook('onRequest', tokenLimit)
    registerKeptReads(protectedScope, keptBodies, keptRoutes)
    registerReadEtags(protectedScope)
    registerMediaBase(protectedScope, config.publicUrl)
    redirectRenamedExperts(protectedScope, context)
    await expertRoutes(protectedScope, context)
    await organizationRoutes(protectedScope, context)
    await contentRoutes(protectedScope, context)
    await publishingRoutes(protectedScope, context)
    await inquiryRoutes(protectedScope, context)
    await searchRoutes(protectedScope, context)
    await staffRoutes(protectedScope, context)
    await importRoutes(protectedScope, context)
    // The photo and the document uploads share one image queue and one allowance per token.
    const uploads = createUploads(context, protectedScope.log)
    await expertAvatarRoutes(protectedScope, uploads)
    await uploadRoutes(protectedScope, context, uploads)
    await ssoSettingsRoutes(protectedScope, sso)
    await adminRoutes(protectedScope, { ...context, mailer: sessions.mailer })
    await worksRoutes(protectedScope, {
      ...context,
      works: worksSchedule,
      refreshLimit: createRefreshLimit(counters),
    })
    await expertMeaningRoutes(protectedScope, context)
    await expertDelegateRoutes(protectedScope, context)
    await topicRoutes(protectedScope, context)
    await workflowRoutes(protectedScope, context)
    await draftRoutes(protectedScope, context)
    await expertEditorialRoutes(protectedScope, context)
    await contentVersionRoutes(protectedScope, context)
  })
  await app.after()
  fallback.install()
  // Nothing but the bearer check and the kept body would run on a kept read: it may skip Fastify.
  if (!tokenLimit && config.corsOrigins.length === 0 && !logsInfo(config.logLevel)) {
    const observe = metrics && httpObserverOf(metrics)
    const reads = database.readConnection()
    const lane = new KeptReadLane({
      principals: auth.principals,
      bodies: keptBodies,
      routes: keptRoutes,
      conventions,
      protocolOf: protocolReader(config.trustProxy),
      ...(config.publicUrl ? { publicUrl: config.publicUrl } : {}),
      ...(observe ? { observe } : {}),
      ...(reads ? { checkingOnce: (work: () => void) => reads.checkingOnce(work) } : {}),
    })
    putInFront(app, (next) => lane.front(next))
    app.decorate('keptReadLane', lane)
  }
  await app.ready()
  return app
}

/** Of the read cache's bytes, the share (1/n) the kept URLs' routes may take besides the bodies. */
const KEPT_ROUTES_SHARE = 8

/** Makes every request of the app's server go through `lane` first, which passes on what it does not answer. */
function putInFront(app: FastifyInstance, lane: (next: RequestListener) => RequestListener): void {
  const [fastify, ...others] = app.server.listeners('request')
  if (!isRequestListener(fastify) || others.length > 0)
    throw new Error('expected Fastify as the only request listener')
  app.server.removeListener('request', fastify)
  app.server.on('request', lane(fastify))
}

/** A `request` listener of the server is one: `listeners()` only forgets its type. */
function isRequestListener(listener: unknown): listener is RequestListener {
  return typeof listener === 'function'
}
