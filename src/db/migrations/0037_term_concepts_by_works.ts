import type { Kysely } from 'kysely'

/**
 * The concepts a text's words imply (src/meaning/rank.ts, inferConcepts) need, for each word, only the
 * concepts it goes with most: those of at least WORD_FOCUS of its most frequent pair. Indexed by
 * (org_id, term, works), a word's most frequent pair is one seek from the end of its range and the
 * pairs that count one range scan from the index alone, however many concepts the word meets in a large
 * organization (hundreds on average at 100,000 experts, most of them once or twice).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('term_concepts_by_works')
    .on('term_concepts')
    .columns(['org_id', 'term', 'works', 'concept'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('term_concepts_by_works').execute()
}
