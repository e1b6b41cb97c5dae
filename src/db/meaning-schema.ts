/** Tables of finding experts by meaning (migrations 0030, 0031 and 0033, CONTRACT §20): derived, rebuilt by the search rebuild. */
export interface MeaningTables {
  meaning_documents: MeaningDocumentsTable
  meaning_stats: MeaningStatsTable
  expert_concepts: ExpertConceptsTable
  concept_df: DocumentFrequencyOfConcept
  hidden_concepts: HiddenConceptsTable
  expert_terms: ExpertTermsTable
  term_df: DocumentFrequencyOfTerm
  expert_embeddings: ExpertEmbeddingsTable
  embedding_stats: EmbeddingStatsTable
  meaning_works: MeaningWorksTable
  term_concepts: TermConceptsTable
  term_works: WorksOfTerm
}

/** One row per expert: its flags, the size of its fingerprint and of its text. */
export interface MeaningDocumentsTable {
  org_id: number
  expert_id: number
  is_published: number
  is_private: number
  /** Visible (not hidden) concepts. */
  concepts: number
  /** Terms in the expert's text, repeats counted (BM25's document length). */
  length: number
}

export interface MeaningStatsTable {
  org_id: number
  /** Experts with at least one visible concept (the N of a concept's IDF). */
  concept_experts: number
  /** Experts with a document (the N of a term's IDF). */
  documents: number
  total_length: number
  /** Claimed works with at least one concept (the N of a term's share of works, migration 0033). */
  works: number
}

export interface ExpertConceptsTable {
  org_id: number
  expert_id: number
  /** The concept's key: its label folded (lower case, no accents, words joined by `-`). */
  concept: string
  label: string
  /** Before IDF: the sum of the concept's contributions (sections, works). */
  weight: number
  /** 1 when the expert or an editor hid it: it counts nowhere. */
  hidden: number
  is_published: number
  is_private: number
}

export interface DocumentFrequencyOfConcept {
  org_id: number
  concept: string
  df: number
}

export interface HiddenConceptsTable {
  org_id: number
  expert_id: number
  concept: string
  hidden_at: number
}

export interface ExpertTermsTable {
  org_id: number
  expert_id: number
  /** The analyzed term (stemmed). */
  term: string
  /** Its most frequent form in this document. */
  word: string
  tf: number
  length: number
}

export interface DocumentFrequencyOfTerm {
  org_id: number
  term: string
  df: number
}

/** An expert's embedding (migration 0031): kept by the background loop when an embeddings API is configured. */
export interface ExpertEmbeddingsTable {
  org_id: number
  expert_id: number
  /** Bumped by every write that may change the expert's text; the loop stores a vector only for the version it read. */
  version: number
  /** When the expert is due to be embedded (again); null when its vector is current. */
  due_at: number | null
  locked_until: number | null
  lock_token: string | null
  /** The model of the stored vector. */
  model: string | null
  /** SHA-256 (hex) of the text the stored vector was made from. */
  text_hash: string | null
  dimensions: number | null
  /** Float32 values, little-endian. */
  vector: Uint8Array | null
  embedded_at: number | null
  /** Failed attempts since the last success. */
  attempts: number
  /** The last failure, for a person to read; null after a success. */
  error: string | null
}

export interface EmbeddingStatsTable {
  org_id: number
  /** Moves whenever a vector of the organization is stored or removed. */
  version: number
}

/** One row per claimed work: the terms and concept keys (space separated) it counted for. */
export interface MeaningWorksTable {
  org_id: number
  work_id: number
  /** Empty when the work has no concept (it counts for nothing). */
  terms: string
  concepts: string
}

/** How many counted works hold both the term and the concept. */
export interface TermConceptsTable {
  org_id: number
  term: string
  concept: string
  works: number
}

/** How many counted works hold the term. */
export interface WorksOfTerm {
  org_id: number
  term: string
  works: number
}
