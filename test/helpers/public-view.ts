/**
 * What `read` sees, as `read:public` sees it: an expert's email, assistant's email and direct phone are
 * never public (the directory's pages do not show them either).
 */
export function withoutContactDetails(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutContactDetails)
  if (typeof value !== 'object' || value === null) return value
  const entries = Object.entries(value).map(([key, field]) => [key, withoutContactDetails(field)])
  const copy: Record<string, unknown> = Object.fromEntries(entries)
  // A scheduled publish or unpublish is for those who may write it (CONTRACT §21).
  if ('publish_at' in copy && 'unpublish_at' in copy) {
    delete copy.publish_at
    delete copy.unpublish_at
  }
  if ('email' in copy && 'phone_number' in copy && 'is_published' in copy) {
    Object.assign(copy, {
      email: '',
      assistant_email: null,
      phone_number: null,
      phone_number_extension: null,
      // The works importer's policies are editorial settings, not the public's to read.
      ...('orcid_policy' in copy ? { orcid_policy: null, openalex_policy: null, scopus_policy: null } : {}),
    })
  }
  return copy
}
