/**
 * The sections a profile item (profile_items.section) belongs to: every stored profile section, in the
 * order the API lists them (src/profiles/section-fields.ts holds their fields), and the avatar. Here,
 * below every feature, so that profiles, search and the derived index name them with one type.
 */
export const SECTION_NAMES = [
  'accomplishment',
  'affiliation',
  'assessment',
  'article',
  'audio',
  'availability',
  'biography',
  'book',
  'category',
  'course',
  'cv',
  'document',
  'education',
  'eventappearance',
  'fee',
  'industry',
  'language',
  'link',
  'mediaappearance',
  'patent',
  'partnership',
  'photo',
  'podchaser',
  'profiletype',
  'researchfocus',
  'researchgrant',
  'sampletalk',
  'seo',
  'social',
  'slideshare',
  'tag',
  'tagline',
  'testimonial',
  'topic',
  'video',
  'vimeo',
  'youtube',
  'avatar',
] as const

export type SectionName = (typeof SECTION_NAMES)[number]

export function isSectionName(name: string): name is SectionName {
  return SECTION_NAMES.some((section) => section === name)
}
