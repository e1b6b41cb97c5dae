import { randomBytes } from 'node:crypto'
import { inflateRawSync } from 'node:zlib'
import { SignedXml } from 'xml-crypto'
import { selfSignedCertificate } from './tls-proxy.js'

/**
 * The identity provider's side of SAML 2.0 Web Browser SSO, for tests: it reads the AuthnRequest a
 * service sends over the HTTP-Redirect binding and answers with a Response whose assertion it signs
 * (RSA-SHA256, exclusive canonicalization, enveloped), as Shibboleth, ADFS or Entra ID do, with a
 * throw-away key and certificate made by openssl.
 */
export class TestSamlIdp {
  static readonly ENTITY_ID = 'https://idp.example.org/idp/shibboleth'
  static readonly ENTRY_POINT = 'https://idp.example.org/idp/profile/SAML2/Redirect/SSO'

  private constructor(
    readonly key: string,
    readonly certificate: string,
  ) {}

  static async create(): Promise<TestSamlIdp> {
    const { key, cert } = await selfSignedCertificate('idp.example.org')
    return new TestSamlIdp(key.toString(), cert.toString())
  }

  /** The ID of the AuthnRequest carried by a redirect to the identity provider. */
  static requestIdOf(redirect: string): string {
    const request = new URL(redirect).searchParams.get('SAMLRequest') ?? ''
    const xml = inflateRawSync(Buffer.from(request, 'base64')).toString('utf8')
    const id = /\sID="([^"]+)"/.exec(xml)?.[1]
    if (!id) throw new Error(`no ID in the AuthnRequest: ${xml}`)
    return id
  }

  /** A Response to `inResponseTo`, its assertion signed unless `sign` is false; base64 as posted. */
  response(options: ResponseOptions): string {
    const xml = responseXml(options)
    if (options.sign === false) return Buffer.from(xml).toString('base64')
    const signer = new SignedXml({
      privateKey: this.key,
      publicCert: this.certificate,
      signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
      canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
    })
    signer.addReference({
      xpath: "//*[local-name(.)='Assertion']",
      digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
      transforms: [
        'http://www.w3.org/2000/09/xmldsig#enveloped-signature',
        'http://www.w3.org/2001/10/xml-exc-c14n#',
      ],
    })
    signer.computeSignature(xml, {
      location: {
        reference: "//*[local-name(.)='Assertion']/*[local-name(.)='Issuer']",
        action: 'after',
      },
    })
    return Buffer.from(signer.getSignedXml()).toString('base64')
  }
}

export interface ResponseOptions {
  inResponseTo: string
  /** The SP's entity id (the audience) and ACS URL. */
  audience: string
  acsUrl: string
  /** Attribute name → values. */
  attributes: Record<string, string[]>
  nameId?: { value: string; format: string }
  /** Defaults to a fresh id. */
  assertionId?: string
  /** Validity window relative to now, in milliseconds (default: 5 minutes back to 5 minutes ahead). */
  notBefore?: number
  notOnOrAfter?: number
  sign?: boolean
}

const xmlText = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')

const newId = () => `_${randomBytes(16).toString('hex')}`

function responseXml(options: ResponseOptions): string {
  const now = Date.now()
  const instant = new Date(now).toISOString()
  const notBefore = new Date(now + (options.notBefore ?? -5 * 60_000)).toISOString()
  const notOnOrAfter = new Date(now + (options.notOnOrAfter ?? 5 * 60_000)).toISOString()
  const nameId = options.nameId ?? {
    value: newId(),
    format: 'urn:oasis:names:tc:SAML:2.0:nameid-format:transient',
  }
  const attributes = Object.entries(options.attributes)
    .map(
      ([name, values]) =>
        `<saml:Attribute Name="${xmlText(name)}" NameFormat="urn:oasis:names:tc:SAML:2.0:attrname-format:uri">${values
          .map((value) => `<saml:AttributeValue>${xmlText(value)}</saml:AttributeValue>`)
          .join('')}</saml:Attribute>`,
    )
    .join('')
  return [
    `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${newId()}" Version="2.0" IssueInstant="${instant}" Destination="${xmlText(options.acsUrl)}" InResponseTo="${xmlText(options.inResponseTo)}">`,
    `<saml:Issuer>${TestSamlIdp.ENTITY_ID}</saml:Issuer>`,
    '<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>',
    `<saml:Assertion ID="${options.assertionId ?? newId()}" Version="2.0" IssueInstant="${instant}">`,
    `<saml:Issuer>${TestSamlIdp.ENTITY_ID}</saml:Issuer>`,
    '<saml:Subject>',
    `<saml:NameID Format="${nameId.format}">${xmlText(nameId.value)}</saml:NameID>`,
    '<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer">',
    `<saml:SubjectConfirmationData NotOnOrAfter="${notOnOrAfter}" Recipient="${xmlText(options.acsUrl)}" InResponseTo="${xmlText(options.inResponseTo)}"/>`,
    '</saml:SubjectConfirmation>',
    '</saml:Subject>',
    `<saml:Conditions NotBefore="${notBefore}" NotOnOrAfter="${notOnOrAfter}">`,
    `<saml:AudienceRestriction><saml:Audience>${xmlText(options.audience)}</saml:Audience></saml:AudienceRestriction>`,
    '</saml:Conditions>',
    `<saml:AuthnStatement AuthnInstant="${instant}" SessionIndex="${newId()}">`,
    '<saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext>',
    '</saml:AuthnStatement>',
    `<saml:AttributeStatement>${attributes}</saml:AttributeStatement>`,
    '</saml:Assertion>',
    '</samlp:Response>',
  ].join('')
}
