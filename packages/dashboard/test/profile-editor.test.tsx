import './dom.ts'
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { fieldsOf } from '../src/forms/model.ts'
import { storedHtml } from '../src/forms/RichText.tsx'
import { countryList, subdivisionList } from '../src/forms/regions.ts'
import { EXPERT_SCHEMAS, ORGANIZATION_SCHEMA, SECTION_SCHEMAS } from '../src/schemas.ts'
import { sectionGroups } from '../src/screens/profile-groups.ts'

describe('the profile editor’s order and pickers', () => {
  test('what the publish checklist asks for comes first; every section is in exactly one group', () => {
    const groups = sectionGroups(SECTION_SCHEMAS)
    assert.equal(groups[0]?.title, 'Essentials')
    assert.deepEqual(
      groups[0]?.sections.map((section) => section.name),
      ['tagline', 'biography', 'topic'],
    )
    assert.equal(groups.filter((group) => group.essential).length, 1)
    const placed = groups.flatMap((group) => group.sections.map((section) => section.name))
    assert.deepEqual([...placed].sort(), SECTION_SCHEMAS.map((section) => section.name).sort())
    assert.equal(new Set(placed).size, placed.length)
    assert.ok(!groups.some((group) => group.title === 'More'), 'a section the table does not name')
  })

  test('a section the table does not name yet is shown under "More", not hidden', () => {
    const [first] = SECTION_SCHEMAS
    assert.ok(first)
    const groups = sectionGroups([...SECTION_SCHEMAS, { ...first, name: 'hologram' }])
    assert.deepEqual(
      groups.at(-1)?.sections.map((section) => section.name),
      ['hologram'],
    )
  })

  test('country and state are pickers, the country first, without the code format as a hint', () => {
    for (const schema of [EXPERT_SCHEMAS.create, EXPERT_SCHEMAS.update, ORGANIZATION_SCHEMA]) {
      const fields = fieldsOf(schema)
      const country = fields.findIndex((field) => field.name === 'location_country')
      const state = fields.findIndex((field) => field.name === 'location_state')
      assert.equal(fields[country]?.kind, 'country')
      assert.equal(fields[state]?.kind, 'subdivision')
      assert.equal(state, country + 1)
      assert.equal(fields[country]?.hint, '')
    }
  })

  test('countries by name, subdivisions of a country by name with the short code the server stores', () => {
    const canada = countryList().find((region) => region.code === 'CA')
    assert.equal(canada?.name, 'Canada')
    assert.ok(countryList().length > 240)
    assert.deepEqual(
      subdivisionList('ca').find((region) => region.name === 'Ontario'),
      { code: 'ON', name: 'Ontario' },
    )
    assert.deepEqual(subdivisionList('ZZ'), [])
  })

  test('a paragraph left empty after the text is not stored', () => {
    assert.equal(storedHtml('<p>Bees</p><p></p><p></p>'), '<p>Bees</p>')
    assert.equal(storedHtml('<p>Bees</p><p></p><p>Ants</p>'), '<p>Bees</p><p></p><p>Ants</p>')
  })
})
