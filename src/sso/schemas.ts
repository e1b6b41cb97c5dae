import { type Static, Type } from 'typebox'
import { CorporationParams } from '../http/params.js'
import { type Described, Email, Flag, Url, wordsOf } from '../validation/text.js'
import { SSO_ROLES } from './roles.js'

export const PROTOCOLS = ['oidc', 'saml'] as const
export type Protocol = (typeof PROTOCOLS)[number]

export function isProtocol(value: string): value is Protocol {
  return PROTOCOLS.some((protocol) => protocol === value)
}

/** The most role-mapping entries and allowed domains one organization may set. */
export const MAX_MAPPINGS = 100
export const MAX_DOMAINS = 50

const SsoRole = (described: Described) =>
  Type.Enum(SSO_ROLES, {
    ...wordsOf(described, '; never owner (owners are made by an owner, not by the identity provider)'),
    'x-message': `must be one of: ${SSO_ROLES.join(', ')}`,
  })

const Text = (maxLength: number, described: Described) =>
  Type.String({
    minLength: 1,
    maxLength,
    ...wordsOf(described),
    'x-message': `must be a text of 1 to ${maxLength} characters`,
  })

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()])

export const RoleMapping = Type.Object(
  {
    group: Text(
      500,
      'A value of the group claim (OIDC) or of a group attribute (SAML: eduPersonAffiliation, eduPersonEntitlement, isMemberOf, ...), matched exactly',
    ),
    role: SsoRole('The role people of that group get'),
  },
  { additionalProperties: false, title: 'SsoRoleMapping' },
)

const DOMAIN = '^(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)+[A-Za-z]{2,63}$'

const settingsFields = {
  protocol: Type.Unsafe<Protocol>({
    type: 'string',
    oneOf: [
      { const: 'oidc', title: 'OpenID Connect' },
      { const: 'saml', title: 'SAML 2.0' },
    ],
    description: 'Protocol',
    'x-message': 'must be oidc or saml',
  }),
  issuer: Url({
    title: 'Issuer (OIDC)',
    description: 'OIDC: the identity provider’s issuer (its discovery document is read from it); https',
  }),
  client_id: Text(255, {
    title: 'Client id (OIDC)',
    description: 'OIDC: this service’s client id at the identity provider',
  }),
  client_secret: Text(1000, {
    title: 'Client secret (OIDC)',
    description:
      'OIDC: the client secret (write-only: stored encrypted under EXPERTDIR_SECRET_KEY, never answered); null or never set: a public client (PKCE only)',
  }),
  scope: Type.String({
    pattern: '^([\\x21\\x23-\\x5B\\x5D-\\x7E]+ )*[\\x21\\x23-\\x5B\\x5D-\\x7E]+$',
    maxLength: 500,
    title: 'Scopes (OIDC)',
    description: 'OIDC: the scopes asked for, space-separated, with openid (default `openid email profile`)',
    'x-message': 'must be scopes separated by single spaces',
  }),
  groups_claim: Text(100, {
    title: 'Groups claim (OIDC)',
    description: 'OIDC: the claim that lists the person’s groups (default `groups`)',
  }),
  entry_point: Url({
    title: 'Sign-on URL (SAML)',
    description: 'SAML: the identity provider’s single sign-on URL (HTTP-Redirect binding); https',
  }),
  idp_certificate: Type.String({
    minLength: 1,
    maxLength: 20_000,
    title: 'Signing certificate (SAML)',
    'x-input': 'longtext',
    description: 'SAML: the identity provider’s signing certificate, PEM (or its base64 body)',
    'x-message': 'must be an X.509 certificate in PEM',
  }),
  sp_entity_id: Text(1000, {
    title: 'Entity id of this service (SAML)',
    description:
      'SAML: this service’s entity id, the audience assertions must name (default: the metadata URL)',
  }),
  role_mapping: Type.Array(RoleMapping, {
    maxItems: MAX_MAPPINGS,
    description: `Groups to roles, at most ${MAX_MAPPINGS}; a person in several groups gets the highest role`,
    'x-message': `must be a list of at most ${MAX_MAPPINGS} {group, role} pairs`,
  }),
  default_role: SsoRole({
    title: 'Role of new people',
    description: 'The role of people created on first sign-in whom no group maps; null: refuse them',
  }),
  allow_create: Flag({
    title: 'Create people on first sign-in',
    description: '1: a person with no account is created on first sign-in',
  }),
  allowed_domains: Type.Array(
    Type.String({ pattern: DOMAIN, description: 'An email domain', 'x-message': 'must be a domain name' }),
    {
      maxItems: MAX_DOMAINS,
      description: `Email domains that may sign in (exact match, at most ${MAX_DOMAINS}); empty: any. A domain belongs to one organization (409 when another lists it); once verified (a DNS TXT record, or the operator's approval) the sign-in page finds the organization by it (GET /auth/sso?email=)`,
      'x-message': `must be a list of at most ${MAX_DOMAINS} domain names`,
    },
  ),
  passwords_off: Flag({
    title: 'Passwords off',
    description:
      '1: passwords are off for the organization: password sign-in and resets are refused for its people',
  }),
}

/**
 * `PUT .../sso`: partial, as the API's other PUTs. The first PUT names the protocol and what it needs
 * (OIDC: issuer and client_id; SAML: entry_point and idp_certificate); later ones change only the
 * fields they give. `null` clears an optional field.
 */
export const SsoSettingsUpdate = Type.Object(
  {
    protocol: Type.Optional(settingsFields.protocol),
    issuer: Type.Optional(settingsFields.issuer),
    client_id: Type.Optional(settingsFields.client_id),
    client_secret: Type.Optional(Nullable(settingsFields.client_secret)),
    scope: Type.Optional(Nullable(settingsFields.scope)),
    groups_claim: Type.Optional(Nullable(settingsFields.groups_claim)),
    entry_point: Type.Optional(settingsFields.entry_point),
    idp_certificate: Type.Optional(settingsFields.idp_certificate),
    sp_entity_id: Type.Optional(Nullable(settingsFields.sp_entity_id)),
    role_mapping: Type.Optional(settingsFields.role_mapping),
    default_role: Type.Optional(Nullable(settingsFields.default_role)),
    allow_create: Type.Optional(settingsFields.allow_create),
    allowed_domains: Type.Optional(settingsFields.allowed_domains),
    passwords_off: Type.Optional(settingsFields.passwords_off),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    title: 'SsoSettingsUpdate',
    'x-message': 'must set at least one field',
  },
)
export type SsoSettingsChanges = Static<typeof SsoSettingsUpdate>

const described = (description: string) => ({ description })

export const SsoDomainView = Type.Object(
  {
    domain: Type.String(),
    verified: Type.Boolean(
      described('Whether the sign-in page sends this domain’s people to this organization'),
    ),
    verified_at: Nullable(Type.String({ format: 'date-time' })),
    verified_by: Nullable(
      Type.Enum(
        ['dns', 'operator'],
        described('dns: the TXT record was found; operator: approved with the CLI'),
      ),
    ),
    txt_name: Type.String(described('Where to add the TXT record that proves the domain')),
    txt_value: Type.String(described('The TXT record’s value')),
  },
  { title: 'SsoDomain' },
)

export type SsoDomainViewData = Static<typeof SsoDomainView>

export const SsoDomainParams = Type.Object(
  {
    corporation: CorporationParams.properties.corporation,
    domain: Type.String({
      pattern: DOMAIN,
      description: 'One of the organization’s allowed domains',
      'x-message': 'must be a domain name',
    }),
  },
  { additionalProperties: false },
)

export const SsoDomainVerified = Type.Object({ domain: SsoDomainView }, { title: 'SsoDomainVerified' })

export const SsoSettingsView = Type.Object(
  {
    protocol: Type.Enum(PROTOCOLS),
    issuer: Nullable(Type.String(described('OIDC issuer'))),
    client_id: Nullable(Type.String()),
    client_secret_set: Type.Boolean(described('Whether a client secret is stored (it is never shown)')),
    scope: Type.String(described('OIDC scopes asked for')),
    groups_claim: Type.String(described('OIDC claim read for groups')),
    entry_point: Nullable(Type.String(described('SAML single sign-on URL of the identity provider'))),
    idp_certificate: Nullable(
      Type.String(described('SAML signing certificate of the identity provider, PEM')),
    ),
    sp_entity_id: Type.String(described('SAML entity id of this service (the audience)')),
    role_mapping: Type.Array(RoleMapping),
    default_role: Nullable(Type.Enum(SSO_ROLES)),
    allow_create: Type.Integer({ enum: [0, 1] }),
    allowed_domains: Type.Array(Type.String()),
    domains: Type.Array(SsoDomainView, {
      description:
        'The allowed domains with their verification: only a verified domain routes the sign-in page',
    }),
    passwords_off: Type.Integer({ enum: [0, 1] }),
    sign_in_url: Type.String(described('Where the sign-in page sends a person to sign in')),
    redirect_uri: Type.String(described('OIDC: the redirect URI to register at the identity provider')),
    metadata_url: Type.String(described('SAML: this service’s SP metadata for the identity provider')),
    acs_url: Type.String(described('SAML: the assertion consumer service URL')),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { title: 'SsoSettings' },
)
export type SsoSettingsViewData = Static<typeof SsoSettingsView>

export const SsoRemoved = Type.Object({ removed: Type.Literal(true) }, { title: 'SsoRemoved' })

/** What the sign-in page may know of an organization's single sign-on: nothing secret. */
export const SsoOption = Type.Object(
  {
    organization: Type.Integer({ description: 'The organization id' }),
    protocol: Type.Enum(PROTOCOLS),
    sign_in_url: Type.String({ description: 'Send the browser here to sign in' }),
    passwords: Type.Boolean({ description: 'Whether its people may still sign in with a password' }),
  },
  { title: 'SsoOption' },
)

export const SsoOptions = Type.Object(
  { options: Type.Array(SsoOption) },
  {
    title: 'SsoOptions',
    description: 'The single sign-on of the organizations that answer for the email domain',
  },
)

export const SsoLookup = Type.Object(
  { email: Email('The address the person typed; only its domain is used') },
  { additionalProperties: false },
)

export const SamlPost = Type.Object(
  {
    SAMLResponse: Type.String({
      minLength: 1,
      maxLength: 512 * 1024,
      description: 'The base64 SAML response',
      'x-message': 'must be a base64 SAML response',
    }),
    RelayState: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false, title: 'SamlResponsePost' },
)

export const OidcCallbackQuery = Type.Object(
  {
    code: Type.Optional(Type.String({ maxLength: 4096 })),
    state: Type.Optional(Type.String({ maxLength: 1000 })),
    iss: Type.Optional(Type.String({ maxLength: 2048 })),
    error: Type.Optional(Type.String({ maxLength: 200 })),
    error_description: Type.Optional(Type.String({ maxLength: 2000 })),
    session_state: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: true },
)

/** The link of a first sign-in's confirmation email. */
export const SsoConfirmQuery = Type.Object(
  {
    token: Type.String({
      minLength: 1,
      maxLength: 200,
      'x-message': 'must be the token of the emailed link',
    }),
  },
  { additionalProperties: false },
)
