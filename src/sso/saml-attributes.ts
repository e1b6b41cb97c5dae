import type { Profile } from '@node-saml/node-saml'
import { propertyOf } from '../validation/guards.js'
import { type AssertedIdentity, valuesOf } from './identity.js'

/**
 * Where a SAML assertion says who signed in. Identity providers name attributes by OID
 * (`urn:oid:...`, as eduPerson and the InCommon and eduGAIN federations do), by friendly name, or by
 * Microsoft's claim URIs; each list is read in order, the first attribute present wins.
 */
const EMAIL = [
  'urn:oid:0.9.2342.19200300.100.1.3', // mail
  'mail',
  'email',
  'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress',
]
const DISPLAY_NAME = [
  'urn:oid:2.16.840.1.113730.3.1.241', // displayName
  'displayName',
  'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name',
  'urn:oid:2.5.4.3', // cn
  'cn',
]
const GIVEN_NAME = [
  'urn:oid:2.5.4.42',
  'givenName',
  'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/givenname',
]
const SURNAME = ['urn:oid:2.5.4.4', 'sn', 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/surname']

/** Every one of these adds its values to the person's groups, which the role mapping matches. */
export const GROUP_ATTRIBUTES = [
  'urn:oid:1.3.6.1.4.1.5923.1.1.1.1', // eduPersonAffiliation: faculty, staff, student, member, ...
  'eduPersonAffiliation',
  'urn:oid:1.3.6.1.4.1.5923.1.1.1.9', // eduPersonScopedAffiliation: faculty@example.edu
  'eduPersonScopedAffiliation',
  'urn:oid:1.3.6.1.4.1.5923.1.1.1.7', // eduPersonEntitlement: URIs
  'eduPersonEntitlement',
  'urn:oid:1.3.6.1.4.1.5923.1.5.1.1', // isMemberOf: group names
  'isMemberOf',
  'memberOf',
  'groups',
  'http://schemas.microsoft.com/ws/2008/06/identity/claims/groups',
  'http://schemas.microsoft.com/ws/2008/06/identity/claims/role',
]

const EMAIL_NAME_ID = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress'
const TRANSIENT_NAME_ID = 'urn:oasis:names:tc:SAML:2.0:nameid-format:transient'

/**
 * Where a persistent identifier is sent when the NameID is transient (Shibboleth's default): the
 * SAML subject-id and pairwise-id attributes, then eduPersonUniqueId, eduPersonPrincipalName.
 */
const SUBJECT_ATTRIBUTES = [
  'urn:oasis:names:tc:SAML:attribute:subject-id',
  'urn:oasis:names:tc:SAML:attribute:pairwise-id',
  'urn:oid:1.3.6.1.4.1.5923.1.1.1.13', // eduPersonUniqueId
  'urn:oid:1.3.6.1.4.1.5923.1.1.1.6', // eduPersonPrincipalName
  'eduPersonPrincipalName',
]

/**
 * The subject a verified assertion is for: the identity provider's entity id (the assertion's
 * Issuer) and its persistent NameID, else the first persistent identifier attribute; undefined when
 * it carries only a transient NameID, which names nobody beyond one sign-in.
 */
export function samlSubject(
  profile: Profile,
  fallbackIssuer: string,
): AssertedIdentity['subject'] | undefined {
  const issuer = typeof profile.issuer === 'string' && profile.issuer !== '' ? profile.issuer : fallbackIssuer
  const format = profile.nameIDFormat ?? ''
  if (typeof profile.nameID === 'string' && profile.nameID !== '' && format !== TRANSIENT_NAME_ID) {
    return { issuer, subject: `${format}|${profile.nameID}` }
  }
  const attribute = first(attributesOf(profile), SUBJECT_ATTRIBUTES)
  return attribute === undefined ? undefined : { issuer, subject: `attribute|${attribute}` }
}

function attributesOf(profile: Profile): Record<string, unknown> {
  const attributes = propertyOf(profile, 'attributes')
  return typeof attributes === 'object' && attributes !== null ? { ...attributes } : {}
}

function first(attributes: Record<string, unknown>, names: readonly string[]): string | undefined {
  for (const name of names) {
    const [value] = valuesOf(attributes[name]).map((text) => text.trim())
    if (value) return value
  }
  return undefined
}

/**
 * The identity a verified assertion carries: the email (the mail attribute, else an email-format
 * NameID), the display name, and the values of every group attribute (`groupsAttribute` too).
 */
export function samlIdentity(
  profile: Profile,
  groupsAttribute: string,
  subject: AssertedIdentity['subject'],
): AssertedIdentity {
  const attributes = attributesOf(profile)
  const nameId = profile.nameIDFormat === EMAIL_NAME_ID ? profile.nameID : undefined
  const given = first(attributes, GIVEN_NAME)
  const surname = first(attributes, SURNAME)
  const name =
    first(attributes, DISPLAY_NAME) ??
    ([given, surname].some((part) => part !== undefined)
      ? [given, surname].filter((part) => part !== undefined).join(' ')
      : undefined)
  const groups = [...new Set([...GROUP_ATTRIBUTES, groupsAttribute].flatMap((n) => valuesOf(attributes[n])))]
  return { subject, email: first(attributes, EMAIL) ?? nameId ?? '', name, groups }
}

/** A path into the assertion as node-saml parses it (xml2js: elements are lists, attributes under `$`). */
function at(node: unknown, ...path: (string | number)[]): unknown {
  return path.reduce<unknown>((value, key) => propertyOf(value, key), node)
}

/**
 * The assertion's id and the end of its validity (the latest NotOnOrAfter of its conditions and
 * subject confirmation; an hour from now when it names none), for the replay cache.
 */
export function assertionIdentity(profile: Profile, now: number): { id: string; notOnOrAfter: number } {
  const assertion = at(profile.getAssertion?.(), 'Assertion')
  const id = at(assertion, '$', 'ID')
  const ends = [
    at(assertion, 'Conditions', 0, '$', 'NotOnOrAfter'),
    at(assertion, 'Subject', 0, 'SubjectConfirmation', 0, 'SubjectConfirmationData', 0, '$', 'NotOnOrAfter'),
  ]
    .map((value) => (typeof value === 'string' ? Date.parse(value) : Number.NaN))
    .filter((value) => Number.isFinite(value))
  return {
    id: typeof id === 'string' ? id : '',
    notOnOrAfter: ends.length > 0 ? Math.max(...ends) : now + 3600_000,
  }
}
