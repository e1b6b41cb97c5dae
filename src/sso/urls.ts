import type { Protocol } from './schemas.js'

/**
 * The addresses of single sign-on, from the service's base URL (`EXPERTDIR_PUBLIC_URL`, else the
 * request's scheme and host): what an identity provider is told and what the sign-in page links to.
 * The OIDC redirect URI is one for the whole service (the transaction names the organization); the
 * SAML endpoints are per organization, as each has its own SP metadata.
 */
export function ssoUrls(baseUrl: string, orgId: number) {
  const base = `${baseUrl.replace(/\/+$/, '')}/auth/sso`
  const saml = `${base}/${orgId}/saml`
  return {
    signIn: (protocol: Protocol) => `${base}/${orgId}/${protocol}`,
    redirectUri: `${base}/oidc/callback`,
    metadataUrl: `${saml}/metadata`,
    acsUrl: `${saml}/acs`,
  }
}

/** The service's base URL: `EXPERTDIR_PUBLIC_URL`, else the request's own scheme and host. */
export function baseUrlOf(
  request: { protocol: string; host: string },
  publicUrl: string | undefined,
): string {
  return publicUrl ?? `${request.protocol}://${request.host}`
}
