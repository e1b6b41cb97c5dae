export {
  createExpertdirClient,
  type DonorInquiry,
  type EventInquiry,
  type ExpertdirClient,
  type ExpertdirClientOptions,
  type ExpertSearchHit,
  type ExpertSearchQuery,
  type ExpertSearchResult,
  type FacetCount,
  type InquiryBody,
  type InquiryKind,
  type InquiryResult,
  type Profile,
  type QuestionRead,
  type SpotlightRead,
} from './client.js'
export { type ErrorCode, type ErrorDetail, ExpertdirError } from './errors.js'
export {
  escapeHtml,
  isoDate,
  jsonLdScript,
  metadataHtml,
  type PageMetadata,
  type PageOptions,
  plainText,
  postMetadata,
  profileMetadata,
  questionMetadata,
  summarize,
} from './metadata.js'
export type { components, operations, paths } from './schema.js'
