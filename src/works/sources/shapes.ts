import { Ajv, type ValidateFunction } from 'ajv'
import { type Static, type TSchema, Type } from 'typebox'
import { SourceError, type SourceName } from './source.js'

/**
 * Shape contracts: per source, exactly the fields its connector reads (keys, types, nullability), as
 * TypeBox schemas. The connector checks every reply with them and reports drift by field path; every
 * test fixture is checked against them; `expertdir works check-sources` checks one live reply per
 * source, which is how upstream drift (and the [unverified] items of the sources' notes) shows.
 * Fields a connector does not read are not named, and extra fields are allowed.
 */

const Maybe = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]))
const OrcidValue = Type.Object({ value: Type.Union([Type.String(), Type.Null()]) })

const OrcidDate = Type.Object({ year: Maybe(OrcidValue), month: Maybe(OrcidValue), day: Maybe(OrcidValue) })

const OrcidExternalIds = Type.Object({
  'external-id': Type.Array(
    Type.Object({
      'external-id-type': Type.String(),
      'external-id-value': Type.String(),
      'external-id-normalized': Maybe(Type.Object({ value: Type.String() })),
      'external-id-relationship': Maybe(Type.String()),
    }),
  ),
})

const OrcidTitle = Type.Object({ title: Maybe(OrcidValue) })

/** `GET /{iD}/works`: ORCID's groups of work summaries. */
export const OrcidWorksShape = Type.Object({
  'last-modified-date': Maybe(Type.Object({ value: Type.Number() })),
  group: Type.Array(
    Type.Object({
      'external-ids': Maybe(OrcidExternalIds),
      'work-summary': Type.Array(
        Type.Object({
          'put-code': Type.Integer(),
          title: Maybe(OrcidTitle),
          type: Maybe(Type.String()),
          'publication-date': Maybe(OrcidDate),
          'journal-title': Maybe(OrcidValue),
        }),
      ),
    }),
  ),
})

const OrcidFullWork = Type.Object({
  'put-code': Type.Integer(),
  title: Maybe(OrcidTitle),
  'journal-title': Maybe(OrcidValue),
  'short-description': Maybe(Type.String()),
  type: Maybe(Type.String()),
  'publication-date': Maybe(OrcidDate),
  'external-ids': Maybe(OrcidExternalIds),
  url: Maybe(OrcidValue),
  contributors: Maybe(
    Type.Object({
      contributor: Type.Array(
        Type.Object({
          'contributor-orcid': Maybe(Type.Object({ path: Maybe(Type.String()), uri: Maybe(Type.String()) })),
          'credit-name': Maybe(OrcidValue),
          'contributor-attributes': Maybe(Type.Object({ 'contributor-sequence': Maybe(Type.String()) })),
        }),
      ),
    }),
  ),
})

/** `GET /{iD}/works/{pc},{pc},…`: full works; an unreadable put-code is an item without `work`. */
export const OrcidBulkShape = Type.Object({
  bulk: Type.Array(Type.Object({ work: Type.Optional(OrcidFullWork) })),
})

/** The token endpoint's reply (client credentials). */
export const OrcidTokenShape = Type.Object({ access_token: Type.String() })

/** A topic (`https://openalex.org/T…`) or keyword (`https://openalex.org/keywords/<slug>`) of a work. */
const OpenalexScored = Type.Object({
  id: Type.String(),
  display_name: Maybe(Type.String()),
  score: Maybe(Type.Number()),
})

const OpenalexWork = Type.Object({
  id: Type.String(),
  doi: Maybe(Type.String()),
  ids: Maybe(Type.Object({ pmid: Maybe(Type.String()) })),
  title: Maybe(Type.String()),
  display_name: Maybe(Type.String()),
  publication_year: Maybe(Type.Integer()),
  publication_date: Maybe(Type.String()),
  type: Maybe(Type.String()),
  primary_location: Maybe(
    Type.Object({ source: Maybe(Type.Object({ display_name: Maybe(Type.String()) })) }),
  ),
  authorships: Type.Array(
    Type.Object({
      author_position: Maybe(Type.String()),
      author: Type.Object({ display_name: Maybe(Type.String()), orcid: Maybe(Type.String()) }),
      raw_author_name: Maybe(Type.String()),
    }),
  ),
  abstract_inverted_index: Maybe(Type.Record(Type.String(), Type.Array(Type.Integer({ minimum: 0 })))),
  topics: Maybe(Type.Array(OpenalexScored)),
  keywords: Maybe(Type.Array(OpenalexScored)),
  mesh: Maybe(
    Type.Array(
      Type.Object({
        descriptor_ui: Type.String(),
        descriptor_name: Maybe(Type.String()),
        is_major_topic: Maybe(Type.Boolean()),
      }),
    ),
  ),
})

/** `GET /works?filter=…&cursor=…`: one page of works. */
export const OpenalexWorksShape = Type.Object({
  meta: Type.Object({ count: Type.Integer(), next_cursor: Maybe(Type.String()) }),
  results: Type.Array(OpenalexWork),
})

/** `GET /authors/{id}`: the author, at its current id after a merge's 301. */
export const OpenalexAuthorShape = Type.Object({ id: Type.String() })

const CrossrefItem = Type.Object({
  DOI: Type.String(),
  title: Type.Optional(Type.Array(Type.String())),
  'container-title': Type.Optional(Type.Array(Type.String())),
  issued: Type.Optional(
    Type.Object({ 'date-parts': Type.Array(Type.Array(Type.Union([Type.Integer(), Type.Null()]))) }),
  ),
  type: Type.Optional(Type.String()),
  URL: Type.Optional(Type.String()),
  abstract: Type.Optional(Type.String()),
  author: Type.Optional(
    Type.Array(
      Type.Object({
        given: Type.Optional(Type.String()),
        family: Type.Optional(Type.String()),
        name: Type.Optional(Type.String()),
        sequence: Type.Optional(Type.String()),
        ORCID: Type.Optional(Type.String()),
        'authenticated-orcid': Type.Optional(Type.Boolean()),
      }),
    ),
  ),
})

/** `GET /works?filter=orcid:…&cursor=…`: one page of works. */
export const CrossrefWorksShape = Type.Object({
  status: Type.String(),
  message: Type.Object({
    'total-results': Type.Integer(),
    items: Type.Array(CrossrefItem),
    'next-cursor': Maybe(Type.String()),
  }),
})

/** `esearch.fcgi?retmode=json`: the numbers are strings. */
export const PubmedSearchShape = Type.Object({
  esearchresult: Type.Object({
    count: Type.String({ pattern: '^\\d+$' }),
    retmax: Type.String({ pattern: '^\\d+$' }),
    retstart: Type.String({ pattern: '^\\d+$' }),
    idlist: Type.Array(Type.String()),
  }),
})

/** An element's text as the XML parser gives it: a string, or `#text` beside its attributes. */
const XmlText = Type.Union([Type.String(), Type.Object({ '#text': Type.Optional(Type.String()) })])
const XmlTagged = (attribute: string) =>
  Type.Object({ '#text': Type.Optional(Type.String()), [attribute]: Type.Optional(Type.String()) })

/** A MeSH descriptor or qualifier: its name beside the `UI` and `MajorTopicYN` attributes. */
const MeshTerm = Type.Object({
  '#text': Type.Optional(Type.String()),
  '@_UI': Type.Optional(Type.String()),
  '@_MajorTopicYN': Type.Optional(Type.String()),
})

const PubmedArticle = Type.Object({
  MedlineCitation: Type.Object({
    PMID: XmlText,
    MeshHeadingList: Type.Optional(
      Type.Union([
        Type.String(),
        Type.Object({
          MeshHeading: Type.Optional(
            Type.Array(
              Type.Object({ DescriptorName: MeshTerm, QualifierName: Type.Optional(Type.Array(MeshTerm)) }),
            ),
          ),
        }),
      ]),
    ),
    Article: Type.Object({
      ArticleTitle: Type.Optional(XmlText),
      Journal: Type.Optional(
        Type.Object({
          Title: Type.Optional(XmlText),
          JournalIssue: Type.Optional(
            Type.Object({
              PubDate: Type.Optional(
                Type.Object({
                  Year: Type.Optional(XmlText),
                  Month: Type.Optional(XmlText),
                  Day: Type.Optional(XmlText),
                  MedlineDate: Type.Optional(XmlText),
                }),
              ),
            }),
          ),
        }),
      ),
      Abstract: Type.Optional(Type.Object({ AbstractText: Type.Optional(Type.Array(XmlText)) })),
      AuthorList: Type.Optional(
        Type.Object({
          Author: Type.Optional(
            Type.Array(
              Type.Object({
                LastName: Type.Optional(XmlText),
                ForeName: Type.Optional(XmlText),
                Initials: Type.Optional(XmlText),
                CollectiveName: Type.Optional(XmlText),
                Identifier: Type.Optional(Type.Array(XmlTagged('@_Source'))),
              }),
            ),
          ),
        }),
      ),
      ELocationID: Type.Optional(Type.Array(XmlTagged('@_EIdType'))),
      PublicationTypeList: Type.Optional(
        Type.Object({ PublicationType: Type.Optional(Type.Array(XmlText)) }),
      ),
    }),
  }),
  PubmedData: Type.Optional(
    Type.Object({
      ArticleIdList: Type.Optional(
        Type.Object({ ArticleId: Type.Optional(Type.Array(XmlTagged('@_IdType'))) }),
      ),
    }),
  ),
})

/** `efetch.fcgi?retmode=xml`, parsed with the repeatable elements as arrays. */
export const PubmedArticleSetShape = Type.Object({
  PubmedArticleSet: Type.Union([
    Type.String(),
    Type.Object({ PubmedArticle: Type.Optional(Type.Array(PubmedArticle)) }),
  ]),
})

export type OrcidWorks = Static<typeof OrcidWorksShape>
export type OrcidBulk = Static<typeof OrcidBulkShape>
export type OrcidFullWorkReply = Static<typeof OrcidFullWork>
export type OpenalexWorks = Static<typeof OpenalexWorksShape>
export type OpenalexWorkReply = Static<typeof OpenalexWork>
export type CrossrefWorks = Static<typeof CrossrefWorksShape>
export type CrossrefItemReply = Static<typeof CrossrefItem>
export type PubmedSearch = Static<typeof PubmedSearchShape>
export type PubmedArticleSet = Static<typeof PubmedArticleSetShape>
export type PubmedArticleReply = Static<typeof PubmedArticle>
export type XmlTextNode = Static<typeof XmlText>
export type MeshTermNode = Static<typeof MeshTerm>

let ajv: Ajv | undefined

/** A schema's check as a type guard (Ajv keeps each schema's compiled function). */
export function shapeCheck<T extends TSchema>(schema: T): ValidateFunction<Static<T>> {
  ajv ??= new Ajv({ allErrors: true, strict: false })
  return ajv.compile<Static<T>>(schema)
}

/** Each mismatch as `path: problem` (`/message/items/0/title: must be array`); empty when it fits. */
export function shapeDrift(schema: TSchema, value: unknown): string[] {
  const validate = shapeCheck(schema)
  if (validate(value)) return []
  const problems = (validate.errors ?? []).map(
    (error) => `${error.instancePath || '/'}: ${error.message ?? 'is invalid'}`,
  )
  return [...new Set(problems)]
}

/** The reply as its shape's type, or a `SourceError` naming the drift by field path. */
export function expectShape<T extends TSchema>(
  source: SourceName,
  schema: T,
  value: unknown,
  what: string,
): Static<T> {
  const validate = shapeCheck(schema)
  if (validate(value)) return value
  const problems = shapeDrift(schema, value)
  const shown = problems.slice(0, 5).join('; ')
  const more = problems.length > 5 ? ` (and ${problems.length - 5} more)` : ''
  throw new SourceError(source, `${what} does not have the expected shape: ${shown}${more}`)
}
