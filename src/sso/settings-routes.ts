import type { FastifyInstance } from 'fastify'
import { requestTrail } from '../audit/request.js'
import { ErrorEnvelope, ok, Success } from '../http/envelope.js'
import { CorporationParams } from '../http/params.js'
import { typedRoutes } from '../http/typed-routes.js'
import type { SsoContext } from './routes.js'
import { SsoRemoved, SsoSettingsUpdate, SsoSettingsView } from './schemas.js'
import { loadSsoSettings, noSso, putSsoSettings, removeSsoSettings, settingsView } from './settings.js'
import { baseUrlOf } from './urls.js'

const errors = { '4xx': ErrorEnvelope }

/** The admin API of an organization's single sign-on (CONTRACT §14): scope `admin`. */
export async function ssoSettingsRoutes(scope: FastifyInstance, context: SsoContext): Promise<void> {
  const app = typedRoutes(scope)
  const path = '/v2/organization/:corporation/sso'
  const base = (request: { protocol: string; host: string }) => baseUrlOf(request, context.config.publicUrl)

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
          'passwords_off 1 refuses password sign-in and resets to the organization’s people.',
        params: CorporationParams,
        body: SsoSettingsUpdate,
        response: { 200: Success(SsoSettingsView), ...errors },
      },
    },
    async (request) => {
      const settings = await putSsoSettings(context.db, request.params.corporation, request.body, {
        secretBox: context.secretBox,
        trail: requestTrail(request),
        now: context.now(),
      })
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
        params: CorporationParams,
        response: { 200: Success(SsoRemoved), ...errors },
      },
    },
    async (request) => {
      await removeSsoSettings(context.db, request.params.corporation, requestTrail(request), context.now())
      return ok({ removed: true as const })
    },
  )
}
