import type { FastifyBaseLogger } from 'fastify'

type LogArguments = Parameters<FastifyBaseLogger['info']>
type Bindings = Parameters<FastifyBaseLogger['child']>[0]
type ChildOptions = Parameters<FastifyBaseLogger['child']>[1]

/**
 * A request's logger that makes its pino child (with the request id, and the redaction settings
 * copied into it) only when something is logged. At a level that writes no request lines, most
 * requests log nothing, and the child was one of the costs of every request.
 */
class RequestLogger implements FastifyBaseLogger {
  #child: FastifyBaseLogger | undefined

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildOptions,
  ) {}

  get #own(): FastifyBaseLogger {
    this.#child ??= this.parent.child(this.bindings, this.options)
    return this.#child
  }

  get level(): FastifyBaseLogger['level'] {
    return this.#child?.level ?? this.parent.level
  }

  set level(level: FastifyBaseLogger['level']) {
    this.#own.level = level
  }

  fatal(...args: LogArguments): void {
    this.#own.fatal(...args)
  }
  error(...args: LogArguments): void {
    this.#own.error(...args)
  }
  warn(...args: LogArguments): void {
    this.#own.warn(...args)
  }
  info(...args: LogArguments): void {
    this.#own.info(...args)
  }
  debug(...args: LogArguments): void {
    this.#own.debug(...args)
  }
  trace(...args: LogArguments): void {
    this.#own.trace(...args)
  }
  silent(...args: LogArguments): void {
    this.#own.silent(...args)
  }
  child(bindings: Bindings, options?: ChildOptions): FastifyBaseLogger {
    return this.#own.child(bindings, options)
  }
}

/**
 * Fastify's per-request logger: a pino child as by default when the level writes the request line
 * (every request logs then), otherwise one made on first use.
 */
export function requestLoggers(
  logsRequests: boolean,
): ((logger: FastifyBaseLogger, bindings: Bindings, options: ChildOptions) => FastifyBaseLogger) | undefined {
  if (logsRequests) return undefined
  return (logger, bindings, options) => new RequestLogger(logger, bindings, options)
}
