import type { FastifyInstance } from 'fastify'
import type { AuthenticatedRequest } from '../audit/request.js'
import { writeContextOf } from '../audit/write-context.js'
import { ErrorEnvelope, ok, Success } from '../http/envelope.js'
import { CorporationParams } from '../http/params.js'
import { typedRoutes } from '../http/typed-routes.js'
import { verifyDomainByDns } from './domains.js'
import type { SsoContext } from './routes.js'
import {
  SsoDomainParams,
  SsoDomainVerified,
  SsoRemoved,
  SsoSettingsUpdate,
  SsoSettingsView,
} from './schemas.js'
import {
  domainView,
  loadSsoSettings,
  noSso,
  putSsoSettings,
  removeSsoSettings,
  settingsView,
} from './settings.js'
import { baseUrlOf } from './urls.js'

const errors = { '4xx': ErrorEnvelope }

/**
 * The admin API of an organization's single sign-on (CONTRACT §14): scope `admin` to read it; only an
 * owner person changes it (src/sso/settings.ts `assertMayChangeSso`), and every change is emailed to
 * the owners.
 */
export async function ssoSettingsRoutes(scope: FastifyInstance, context: SsoContext): Promise<void> {
  const app = typedRoutes(scope)
  const path = '/v2/organization/:corporation/sso'
  const base = (request: { protocol: string; host: string }) => baseUrlOf(request, context.config.publicUrl)
  const writeContext = (request: AuthenticatedRequest, orgId: number) => ({
    ...writeContextOf(request, context, orgId),
    notices: context.notices,
  })

  app.get(
    path,
    {
      config: { scope: 'admin' },
      schema: {
        operationId: 'getSsoSettings',
        tags: ['sso'],
        summary: 'The organization’s single sign-on settings (never the client secret)',
        description:
          'With the addresses to give the identity provider: the OIDC redirect URI, the SAML metadata and ACS URLs. 404 when none is set up.',
        params: CorporationParams,
        response: { 200: Success(SsoSettingsView), ...errors },
      },
    },
    async (request) => {
      const settings = await loadSsoSettings(context.db, request.params.corporation)
      if (!settings) throw noSso()
      return ok(settingsView(settings, base(request)))
    },
  )

  app.put(
    path,
    {
      config: { scope: 'admin' },
      schema: {
        operationId: 'updateSsoSettings',
        tags: ['sso'],
        summary: 'Set up or change the organization’s single sign-on (OpenID Connect or SAML 2.0)',
        description:
          'Partial: the first PUT names the protocol and what it needs (oidc: issuer, client_id; saml: entry_point, ' +
          'idp_certificate); later ones change only the fields given, and null clears an optional one. A client ' +
          'secret is stored encrypted and never answered; the server refuses it when it has no EXPERTDIR_SECRET_KEY. ' +
          'passwords_off 1 refuses password sign-in and resets to the organization’s people. Only an owner may ' +
          'change single sign-on (403 for an admin person or a machine client); a domain another organization ' +
          'lists is 409; a new identity provider (issuer, client_id, entry_point or certificate) forgets who ' +
          'people were at the old one; the owners are emailed on every change.',
        params: CorporationParams,
        body: SsoSettingsUpdate,
        response: { 200: Success(SsoSettingsView), ...errors },
      },
    },
    async (request) => {
      const settings = await putSsoSettings(
        { ...writeContext(request, request.params.corporation), secretBox: context.secretBox },
        request.body,
      )
      return ok(settingsView(settings, base(request)))
    },
  )

  app.delete(
    path,
    {
      config: { scope: 'admin' },
      schema: {
        operationId: 'removeSsoSettings',
        tags: ['sso'],
        summary: 'Remove the organization’s single sign-on; passwords work again',
        description: 'Only an owner may remove it; the owners are emailed.',
        params: CorporationParams,
        response: { 200: Success(SsoRemoved), ...errors },
      },
    },
    async (request) => {
      await removeSsoSettings(writeContext(request, request.params.corporation))
      return ok({ removed: true as const })
    },
  )

  app.post(
    `${path}/domains/:domain/verify`,
    {
      config: { scope: 'admin' },
      schema: {
        operationId: 'verifySsoDomain',
        tags: ['sso'],
        summary: 'Verify one of the allowed domains by its DNS TXT record',
        description:
          'Looks up the TXT record at txt_name (`_expertdir.<domain>`) and, when one holds txt_value, marks the ' +
          'domain verified: from then on the sign-in page sends its people to this organization’s identity ' +
          'provider. Only an owner; 409 while the record is not found, 503 when DNS does not answer. The ' +
          'service’s operator may approve a domain instead (`expertdir sso verify-domain`).',
        params: SsoDomainParams,
        response: { 200: Success(SsoDomainVerified), ...errors },
      },
    },
    async (request) => {
      const { corporation, domain } = request.params
      const verified = await verifyDomainByDns(writeContext(request, corporation), domain, context.resolveTxt)
      return ok({ domain: domainView(verified) })
    },
  )
}
