import { type Static, Type } from 'typebox'
import { CorporationParams, ExpertParams } from '../http/params.js'

/** Request and response schemas of finding experts by meaning (CONTRACT §20). */

export const DEFAULT_LIMIT = 10
export const MAX_LIMIT = 50
export const MAX_TEXT = 20_000

// No `default` keyword: a body property with one reads as required to the client generator.
const Limit = Type.Integer({
  minimum: 1,
  maximum: MAX_LIMIT,
  description: `How many to return, 1 to ${MAX_LIMIT} (default ${DEFAULT_LIMIT})`,
  'x-message': `must be an integer from 1 to ${MAX_LIMIT}`,
})

export const LimitQuery = Type.Object({ limit: Type.Optional(Limit) }, { additionalProperties: false })

export const MatchBody = Type.Object(
  {
    text: Type.String({
      minLength: 1,
      maxLength: MAX_TEXT,
      description:
        'A press release, an abstract or a question, up to 20,000 characters. DOIs and PMIDs in it bring in the concepts of those works.',
      'x-message': `must be a text of 1 to ${MAX_TEXT} characters`,
    }),
    limit: Type.Optional(Limit),
  },
  {
    additionalProperties: false,
    title: 'ExpertMatch',
    examples: [
      { text: 'Rising seas and storm surges: how should coastal cities plan flood defences?', limit: 5 },
    ],
  },
)

export const Reason = Type.Object(
  {
    kind: Type.Union([Type.Literal('concept'), Type.Literal('coauthor'), Type.Literal('term')], {
      description:
        'concept: a concept both fingerprints share (or that the text names, or that its words imply through the works of the organization); coauthor: a work both experts claimed; term: a word both texts use',
    }),
    label: Type.String({ description: "The concept's label, the shared work's title or the word" }),
  },
  { title: 'MeaningReason' },
)

export const SimilarExpert = Type.Object(
  {
    username: Type.String(),
    firstname: Type.String(),
    lastname: Type.String(),
    job_title: Type.String(),
    avatar: Type.Object(
      { small: Type.String(), medium: Type.String(), large: Type.String(), original: Type.String() },
      { description: 'Image URLs, "" when none' },
    ),
    score: Type.Number({
      description: 'Reciprocal rank fusion of the rankings that found the expert; higher first',
    }),
    reasons: Type.Array(Reason, {
      description: 'Why: shared concepts first, then co-authored works, then words',
    }),
  },
  { title: 'SimilarExpert' },
)

export const SimilarExperts = Type.Object(
  { experts: Type.Array(SimilarExpert) },
  {
    title: 'SimilarExperts',
    examples: [
      {
        experts: [
          {
            username: 'ada-okafor',
            firstname: 'Ada',
            lastname: 'Okafor',
            job_title: 'Professor of Coastal Engineering',
            avatar: { small: '', medium: '', large: '', original: '' },
            score: 0.032522,
            reasons: [
              { kind: 'concept', label: 'Flood risk' },
              { kind: 'coauthor', label: 'Storm surge barriers in a warmer climate' },
              { kind: 'term', label: 'surge' },
            ],
          },
        ],
      },
    ],
  },
)

export type SimilarExpertData = Static<typeof SimilarExpert>
export type ReasonData = Static<typeof Reason>

export const ConceptParams = Type.Object({
  ...ExpertParams.properties,
  concept: Type.String({
    minLength: 1,
    maxLength: 200,
    description:
      "The concept's key, as the concepts list gives it (its label in lower case, words joined by -)",
    'x-message': 'must be a concept key of 1 to 200 characters',
  }),
})

export const ConceptView = Type.Object(
  {
    concept: Type.String({
      description: 'The key: the label in lower case, without accents, words joined by -',
    }),
    label: Type.String(),
    weight: Type.Number({
      description: 'Its weight in the fingerprint (IDF applied, L2-normalised); 0 when hidden',
    }),
    hidden: Type.Boolean({
      description: 'Hidden concepts count nowhere: not in similarity, matching or reasons',
    }),
  },
  { title: 'ExpertConcept' },
)

export const ConceptList = Type.Object(
  { concepts: Type.Array(ConceptView) },
  {
    title: 'ExpertConcepts',
    examples: [
      {
        concepts: [
          { concept: 'flood-risk', label: 'Flood risk', weight: 0.6, hidden: false },
          { concept: 'hydrology', label: 'Hydrology', weight: 0, hidden: true },
        ],
      },
    ],
  },
)

export type ConceptViewData = Static<typeof ConceptView>

export const ConceptUpdate = Type.Object(
  { hidden: Type.Boolean({ description: 'true hides the concept, false shows it again' }) },
  { additionalProperties: false, title: 'ExpertConceptUpdate', examples: [{ hidden: true }] },
)

export const RelatedQuery = Type.Object(
  {
    topic: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'A topic or concept label (case and accents do not matter)',
      'x-message': 'must be a topic of 1 to 200 characters',
    }),
    limit: Type.Optional(Limit),
  },
  { additionalProperties: false },
)

export const RelatedTopics = Type.Object(
  {
    topics: Type.Array(
      Type.Object(
        {
          topic: Type.String({ description: "The related topic's label" }),
          strength: Type.Number({
            description:
              "Normalised pointwise mutual information over experts' concepts, -1 to 1; higher first",
          }),
          experts: Type.Integer({ description: 'Experts who have both (at least 3)' }),
        },
        { title: 'RelatedTopic' },
      ),
    ),
  },
  {
    title: 'RelatedTopics',
    examples: [{ topics: [{ topic: 'Coastal engineering', strength: 0.8123, experts: 4 }] }],
  },
)

export { CorporationParams, ExpertParams }
