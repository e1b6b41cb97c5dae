/** A minted bearer token: its value and its lifetime in seconds. */
export interface MintedToken {
  access_token: string
  expires_in: number
}

/**
 * Keeps the dashboard's bearer token for /v2 in memory only (never in storage a script could read
 * later) and mints a new one before the current one expires: once less than a fifth of its lifetime
 * (at most a minute) is left. Concurrent callers share one mint.
 */
export class TokenKeeper {
  private current: { value: string; renewAt: number } | undefined
  private pending: Promise<string> | undefined

  constructor(
    private readonly mint: () => Promise<MintedToken>,
    private readonly now: () => number = Date.now,
  ) {}

  async token(): Promise<string> {
    if (this.current && this.now() < this.current.renewAt) return this.current.value
    this.pending ??= this.renew().finally(() => {
      this.pending = undefined
    })
    return this.pending
  }

  /** Drops the token (signed out, or the server refused it). */
  forget(): void {
    this.current = undefined
  }

  private async renew(): Promise<string> {
    const started = this.now()
    const minted = await this.mint()
    const lifetimeMs = minted.expires_in * 1000
    const margin = Math.min(60_000, lifetimeMs / 5)
    this.current = { value: minted.access_token, renewAt: started + lifetimeMs - margin }
    return minted.access_token
  }
}
