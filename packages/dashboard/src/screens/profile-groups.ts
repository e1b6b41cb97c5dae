import type { SectionSchema } from '../schemas.ts'

export interface SectionGroup {
  title: string
  /** Open when the screen opens: what the publish checklist asks for. */
  essential: boolean
  sections: readonly SectionSchema[]
}

/**
 * The profile editor's order: what a published profile needs first (the photo has its own panel), then
 * the other sections by what a person is doing when they open them. A section the server adds later and
 * this table does not name yet lands in "More", so it is never hidden.
 */
const GROUPS: readonly { title: string; essential?: true; names: readonly string[] }[] = [
  { title: 'Essentials', essential: true, names: ['tagline', 'biography', 'topic'] },
  {
    title: 'Expertise',
    names: [
      'researchfocus',
      'industry',
      'category',
      'tag',
      'profiletype',
      'language',
      'education',
      'affiliation',
    ],
  },
  { title: 'Publications', names: ['article', 'book', 'patent', 'document', 'cv'] },
  {
    title: 'Media',
    names: [
      'mediaappearance',
      'eventappearance',
      'sampletalk',
      'photo',
      'video',
      'audio',
      'youtube',
      'vimeo',
      'podchaser',
      'slideshare',
    ],
  },
  { title: 'Teaching and research', names: ['course', 'researchgrant', 'partnership'] },
  { title: 'Recognition', names: ['accomplishment', 'assessment', 'testimonial'] },
  { title: 'Contact and booking', names: ['availability', 'fee', 'link', 'social', 'seo'] },
]

export function sectionGroups(sections: readonly SectionSchema[]): SectionGroup[] {
  const byName = new Map(sections.map((section) => [section.name, section]))
  const placed = new Set<string>()
  const groups: SectionGroup[] = GROUPS.map((group) => ({
    title: group.title,
    essential: group.essential === true,
    sections: group.names.flatMap((name) => {
      const section = byName.get(name)
      if (!section) return []
      placed.add(name)
      return [section]
    }),
  })).filter((group) => group.sections.length > 0)
  const rest = sections.filter((section) => !placed.has(section.name))
  if (rest.length > 0) groups.push({ title: 'More', essential: false, sections: rest })
  return groups
}
