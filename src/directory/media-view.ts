/**
 * How the public pages show the media desk's fields (CONTRACT §22): languages by name, the end of an
 * availability in UTC and in the expert's own time zone, the zone by its name.
 */

/** Made on first use: ICU's locale data stays unloaded in a process that shows no language. */
let languageNames: Intl.DisplayNames | undefined

/** "French (Canada)" for `fr-CA`; the tag itself when the runtime has no name for it. */
export function languageName(tag: string): string {
  try {
    languageNames ??= new Intl.DisplayNames(['en'], { type: 'language', fallback: 'code' })
    return languageNames.of(tag) ?? tag
  } catch {
    return tag
  }
}

/** "1 December 2026, 14:00" in `timeZone`. */
function dateTimeIn(seconds: number, timeZone: string): string {
  return new Date(seconds * 1000).toLocaleString('en-GB', {
    timeZone,
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
  })
}

/** "Central European Time": a zone's name that does not change with summer time (the page is kept until the profile changes). */
export function zoneName(timeZone: string): string {
  const part = new Intl.DateTimeFormat('en', { timeZone, timeZoneName: 'longGeneric' })
    .formatToParts(0)
    .find((p) => p.type === 'timeZoneName')
  return part?.value ?? timeZone
}

/** The account fields the block reads (the profile read's, as served to the public). */
interface Account {
  media_available: number
  media_available_until: number | null
  interview_languages: readonly string[]
  remote_ready: number
  studio_ready: number
  time_zone: string | null
}

/** The "Media availability" block of an expert page, or undefined when the profile says nothing of it. */
export function mediaAvailability(account: Account) {
  const { media_available_until: until, time_zone: zone } = account
  const available = account.media_available === 1
  const ways = [
    account.remote_ready === 1 ? 'Remote interviews (video or phone)' : '',
    account.studio_ready === 1 ? 'Studio interviews' : '',
  ].filter(Boolean)
  const languages = account.interview_languages.map(languageName)
  if (!available && ways.length === 0 && languages.length === 0 && zone === null) return undefined
  return {
    available,
    until:
      available && until !== null
        ? {
            iso: new Date(until * 1000).toISOString(),
            utc: `${dateTimeIn(until, 'UTC')} UTC`,
            local: zone && zone !== 'UTC' ? `${dateTimeIn(until, zone)} ${zoneName(zone)}` : undefined,
          }
        : undefined,
    languages,
    ways,
    zone: zone === null ? undefined : { id: zone, name: zoneName(zone) },
  }
}
