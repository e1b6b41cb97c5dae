import { generateKeyPairSync, randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import Provider, { type Configuration } from 'oidc-provider'
import { listeningPort } from './net.js'

/** Someone the test provider signs in: what its claims say. */
export interface TestAccount {
  /** The provider's subject for the account; default: the email, lower-cased. */
  sub?: string
  email: string
  email_verified?: boolean
  name?: string
  groups?: string[]
}

/** The account's subject at the provider: its `sub`, else its email lower-cased. */
const subjectOf = (account: TestAccount) => account.sub ?? account.email.toLowerCase()

export const OIDC_CLIENT_ID = 'expertdir-test'
export const OIDC_CLIENT_SECRET = 'a client secret the provider knows'

/**
 * A real OpenID provider (the `oidc-provider` package) on 127.0.0.1, for tests. Its login and consent
 * screens are the only part automated: the person to sign in is set with `signInNext`, and the
 * interaction endpoint signs that person in and grants the scopes asked for. Everything else (the
 * authorization endpoint, PKCE, codes, the token and userinfo endpoints, signed ID tokens, discovery)
 * is the provider's own.
 */
export class TestOidcProvider {
  private next: TestAccount | undefined
  /** The authorization requests the provider received, as the browser sent them. */
  readonly authorizationRequests: URL[] = []

  private constructor(
    private readonly server: Server,
    readonly issuer: string,
  ) {}

  static async start(redirectUris: string[]): Promise<TestOidcProvider> {
    let handle: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end()
    const server = createServer((req, res) => handle(req, res))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const issuer = `http://127.0.0.1:${listeningPort(server)}`
    const test = new TestOidcProvider(server, issuer)
    const provider = new Provider(issuer, test.configuration(redirectUris))
    const callback = provider.callback()
    handle = (req, res) => {
      const url = new URL(req.url ?? '/', issuer)
      if (url.pathname === '/auth') test.authorizationRequests.push(url)
      if (url.pathname.startsWith('/interaction/')) {
        void test.interact(provider, req, res)
        return
      }
      void callback(req, res)
    }
    return test
  }

  /** The account the next sign-in at the provider is for. */
  signInNext(account: TestAccount): void {
    this.next = account
  }

  close(): Promise<void> {
    this.server.closeAllConnections()
    return new Promise((resolve) => this.server.close(() => resolve()))
  }

  private async interact(provider: Provider, req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const details = await provider.interactionDetails(req, res)
      const account = this.next
      if (!account) throw new Error('the test named nobody to sign in (signInNext)')
      if (details.prompt.name === 'login') {
        await provider.interactionFinished(req, res, { login: { accountId: subjectOf(account) } })
        return
      }
      const grant = new provider.Grant({ accountId: subjectOf(account), clientId: OIDC_CLIENT_ID })
      const scope = details.params.scope
      if (typeof scope === 'string') grant.addOIDCScope(scope)
      await provider.interactionFinished(
        req,
        res,
        { consent: { grantId: await grant.save() } },
        { mergeWithLastSubmission: true },
      )
    } catch (error) {
      res.statusCode = 500
      res.end(String(error))
    }
  }

  private configuration(redirectUris: string[]): Configuration {
    const signingKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
      format: 'jwk',
    })
    return {
      clients: [
        {
          client_id: OIDC_CLIENT_ID,
          client_secret: OIDC_CLIENT_SECRET,
          redirect_uris: redirectUris,
          grant_types: ['authorization_code'],
          response_types: ['code'],
          token_endpoint_auth_method: 'client_secret_basic',
        },
      ],
      jwks: { keys: [{ ...signingKey, kid: 'test', use: 'sig', alg: 'RS256' }] },
      cookies: { keys: [randomBytes(32).toString('hex')] },
      pkce: { required: () => true },
      claims: {
        openid: ['sub'],
        email: ['email', 'email_verified'],
        profile: ['name'],
        groups: ['groups'],
      },
      features: { devInteractions: { enabled: false } },
      interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
      findAccount: (_ctx, id) => {
        const account = this.next
        if (!account || subjectOf(account) !== id) return undefined
        return {
          accountId: id,
          claims: () => ({
            sub: id,
            email: account.email,
            email_verified: account.email_verified ?? true,
            ...(account.name ? { name: account.name } : {}),
            groups: account.groups ?? [],
          }),
        }
      },
    }
  }
}

/** The cookies a small browser keeps for one site: what each response sets, sent with the next request. */
export class CookieJar {
  private readonly cookies = new Map<string, string>()

  store(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';')
      const at = pair.indexOf('=')
      if (at > 0) this.cookies.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim())
    }
  }

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ')
  }
}

/**
 * Follows the provider's redirects from the authorization URL the way a browser does, carrying the
 * provider's cookies, until the provider sends the browser to a URL outside it (the service's
 * redirect URI with the code): that URL.
 */
export async function throughProvider(provider: TestOidcProvider, authorizationUrl: string): Promise<URL> {
  const jar = new CookieJar()
  let url = new URL(authorizationUrl)
  for (let hop = 0; hop < 10; hop++) {
    if (!url.href.startsWith(provider.issuer)) return url
    const response = await fetch(url, { redirect: 'manual', headers: { cookie: jar.header() } })
    jar.store(response)
    const location = response.headers.get('location')
    if (!location) throw new Error(`the provider answered ${response.status}: ${await response.text()}`)
    url = new URL(location, url)
  }
  throw new Error('the provider redirected too many times')
}
