import assert from 'node:assert/strict'
import { before, test } from 'node:test'
import * as oauth from 'oauth4webapi'
import { describeEachDialect } from './helpers/harness.js'
import { listeningPort } from './helpers/net.js'

const SCOPES = [
  'read',
  'read:public',
  'write',
  'inquiries:create',
  'inquiries:read',
  'inquiries:handle',
  'admin',
]

/** The members RFC 8414 asks for, with the URLs under `base`. */
function expectedMetadata(base: string) {
  return {
    issuer: base,
    token_endpoint: `${base}/v2/oauth/token`,
    revocation_endpoint: `${base}/v2/oauth/revoke`,
    grant_types_supported: ['client_credentials'],
    response_types_supported: [],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    scopes_supported: SCOPES,
    service_documentation: `${base}/docs`,
  }
}

describeEachDialect('OAuth for off-the-shelf clients (RFC 8414 metadata, oauth4webapi)', (ctx) => {
  let issuer: URL
  const insecure = { [oauth.allowInsecureRequests]: true }

  before(async () => {
    await ctx.app.listen({ host: '127.0.0.1', port: 0 })
    issuer = new URL(`http://127.0.0.1:${listeningPort(ctx.app.server)}`)
  })

  test('the metadata is a plain JSON object whose URLs come from the request when no public URL is set', async () => {
    const response = await ctx.inject({
      method: 'GET',
      url: '/.well-known/oauth-authorization-server',
      headers: { host: 'directory.example.net:8443' },
    })
    assert.equal(response.statusCode, 200)
    assert.equal(response.headers['content-type'], 'application/json; charset=utf-8')
    assert.deepEqual(response.json(), expectedMetadata('http://directory.example.net:8443'))
  })

  test('the metadata needs no token', async () => {
    const response = await fetch(new URL('/.well-known/oauth-authorization-server', issuer))
    assert.equal(response.status, 200)
  })

  test('oauth4webapi discovers the server and obtains a token with client_secret_post and with client_secret_basic', async () => {
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }),
    )
    assert.equal(as.token_endpoint, `${issuer.origin}/v2/oauth/token`)
    const { client_id, client_secret } = ctx.tenant.client
    const client: oauth.Client = { client_id }
    for (const auth of [oauth.ClientSecretPost(client_secret), oauth.ClientSecretBasic(client_secret)]) {
      const response = await oauth.clientCredentialsGrantRequest(
        as,
        client,
        auth,
        new URLSearchParams({ scope: 'read inquiries:create' }),
        insecure,
      )
      const result = await oauth.processClientCredentialsResponse(as, client, response)
      assert.equal(result.token_type, 'bearer')
      assert.equal(result.scope, 'read inquiries:create')
      assert.equal(result.expires_in, 30 * 24 * 3600)
      const read = await fetch(new URL(`/v2/organization/${ctx.tenant.orgId}/expert/nobody`, issuer), {
        headers: { authorization: `Bearer ${result.access_token}` },
      })
      assert.equal(read.status, 404, 'the token works')
    }
  })

  test('oauth4webapi reads our errors: invalid_client, invalid_scope, and the Basic challenge', async () => {
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }),
    )
    const client: oauth.Client = { client_id: ctx.other.client.client_id }
    const wrongPost = await oauth.clientCredentialsGrantRequest(
      as,
      client,
      oauth.ClientSecretPost('wrong-secret'),
      new URLSearchParams(),
      insecure,
    )
    await assert.rejects(oauth.processClientCredentialsResponse(as, client, wrongPost), (error: unknown) => {
      assert.ok(error instanceof oauth.ResponseBodyError, String(error))
      assert.equal(error.status, 401)
      assert.equal(error.error, 'invalid_client')
      assert.match(error.error_description ?? '', /Client authentication failed/)
      return true
    })

    const badScope = await oauth.clientCredentialsGrantRequest(
      as,
      { client_id: ctx.tenant.client.client_id },
      oauth.ClientSecretPost(ctx.tenant.client.client_secret),
      new URLSearchParams({ scope: 'superuser' }),
      insecure,
    )
    await assert.rejects(
      oauth.processClientCredentialsResponse(as, { client_id: ctx.tenant.client.client_id }, badScope),
      (error: unknown) => error instanceof oauth.ResponseBodyError && error.error === 'invalid_scope',
    )

    const wrongBasic = await oauth.clientCredentialsGrantRequest(
      as,
      client,
      oauth.ClientSecretBasic('wrong-secret'),
      new URLSearchParams(),
      insecure,
    )
    await assert.rejects(oauth.processClientCredentialsResponse(as, client, wrongBasic), (error: unknown) => {
      assert.ok(error instanceof oauth.WWWAuthenticateChallengeError, String(error))
      assert.equal(error.cause[0]?.scheme, 'basic')
      assert.equal(error.cause[0]?.parameters.realm, 'expertdir')
      return true
    })
  })

  test('oauth4webapi revokes a token (RFC 7009)', async () => {
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }),
    )
    const client: oauth.Client = { client_id: ctx.tenant.client.client_id }
    const auth = oauth.ClientSecretBasic(ctx.tenant.client.client_secret)
    const issued = await oauth.processClientCredentialsResponse(
      as,
      client,
      await oauth.clientCredentialsGrantRequest(as, client, auth, new URLSearchParams(), insecure),
    )
    const revoked = await oauth.revocationRequest(as, client, auth, issued.access_token, insecure)
    await oauth.processRevocationResponse(revoked)
    const read = await fetch(new URL(`/v2/organization/${ctx.tenant.orgId}/expert/nobody`, issuer), {
      headers: { authorization: `Bearer ${issued.access_token}` },
    })
    assert.equal(read.status, 401)
  })
})

describeEachDialect(
  'RFC 8414 metadata with EXPERTDIR_PUBLIC_URL',
  (ctx) => {
    test('the URLs come from the public URL, whatever Host the request names', async () => {
      const response = await ctx.inject({
        method: 'GET',
        url: '/.well-known/oauth-authorization-server',
        headers: { host: 'attacker.example' },
      })
      assert.equal(response.statusCode, 200)
      assert.deepEqual(response.json(), expectedMetadata('https://experts.example.edu/api'))
    })
  },
  { config: { publicUrl: 'https://experts.example.edu/api' } },
)
