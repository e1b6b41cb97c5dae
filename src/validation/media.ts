/**
 * The media desk's codes (CONTRACT §22): interview languages as BCP 47 tags and time zones as IANA
 * names, both checked by the runtime's own ICU data (`Intl`), never by a hand-written list.
 */

/** The canonical form of a BCP 47 tag (`EN-us` -> `en-US`), or undefined when it is none. */
export function canonicalLanguageTag(tag: string): string | undefined {
  // Intl accepts `und` and private-use-only tags; neither names a language an interview is held in.
  if (!/^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/.test(tag)) return undefined
  try {
    const [canonical] = Intl.getCanonicalLocales(tag)
    return canonical === undefined || canonical === 'und' ? undefined : canonical
  } catch {
    return undefined
  }
}

/** The language of a tag (`fr-CA` -> `fr`). */
export const languageOfTag = (tag: string): string => tag.split('-')[0] ?? tag

/** Tags canonicalized, in the order given, each once (what is no tag is dropped: the schema refuses it first). */
export function canonicalLanguageTags(tags: readonly string[]): string[] {
  const seen = new Set<string>()
  for (const tag of tags) {
    const canonical = canonicalLanguageTag(tag)
    if (canonical !== undefined) seen.add(canonical)
  }
  return [...seen]
}

/** The IANA zones the runtime knows, canonical and lower-cased -> as spelled, plus UTC. */
let zones: Map<string, string> | undefined
function knownZones(): Map<string, string> {
  zones ??= new Map(
    [...Intl.supportedValuesOf('timeZone'), 'UTC'].map((zone) => [zone.toLowerCase(), zone] as const),
  )
  return zones
}

/**
 * The IANA time zone name as the runtime spells it (`europe/paris` -> `Europe/Paris`; a link such as
 * `Asia/Calcutta` as the runtime resolves it), or undefined. Offsets (`+01:00`) are no zone names.
 */
export function canonicalTimeZone(name: string): string | undefined {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(name)) return undefined
  const known = knownZones().get(name.toLowerCase())
  if (known) return known
  try {
    return new Intl.DateTimeFormat('en', { timeZone: name }).resolvedOptions().timeZone
  } catch {
    return undefined
  }
}

/** Every zone a form offers, sorted. */
export const timeZoneNames = (): string[] => [...knownZones().values()].sort()

/** The stored JSON list of interview languages (`experts.interview_languages`); anything else reads as none. */
export function interviewLanguagesOf(stored: string): string[] {
  try {
    const value: unknown = JSON.parse(stored)
    return Array.isArray(value) ? value.filter((tag): tag is string => typeof tag === 'string') : []
  } catch {
    return []
  }
}
