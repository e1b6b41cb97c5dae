import './dom.ts'
import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'
import { cleanup, fireEvent, render, screen } from '@testing-library/react'
import { Editor } from '@tiptap/core'
import { sanitizeHtml } from '../../../src/validation/html.ts'
import { bodyOf, fieldsOf, valuesOf } from '../src/forms/model.ts'
import { RICH_TEXT_EXTENSIONS } from '../src/forms/rich-text-extensions.ts'
import { SchemaFields } from '../src/forms/SchemaFields.tsx'
import { CONTENT_SCHEMAS, EXPERT_SCHEMAS, ORGANIZATION_SCHEMA, SECTION_SCHEMAS } from '../src/schemas.ts'

const section = (name: string) => {
  const found = SECTION_SCHEMAS.find((candidate) => candidate.name === name)
  assert.ok(found, name)
  return found
}
const fieldsOfSection = (name: string, mode: 'create' | 'update' = 'create') => fieldsOf(section(name)[mode])

describe('the form generator: fields from the API’s write schemas', () => {
  test('every writable section gets a form, each field with a label, in the schema’s order', () => {
    assert.equal(SECTION_SCHEMAS.length, 37)
    for (const schema of SECTION_SCHEMAS) {
      const fields = fieldsOf(schema.create)
      assert.ok(fields.length > 0, schema.name)
      assert.deepEqual(
        fields.map((field) => field.name),
        Object.keys(schema.create.properties ?? {}),
        schema.name,
      )
      for (const field of fields) assert.ok(field.label.length > 0, `${schema.name}.${field.name}`)
    }
  })

  test('kinds follow the schema: HTML, embeds, dates, years, numbers, flags, URLs and named choices', () => {
    const kinds = (name: string) =>
      Object.fromEntries(fieldsOfSection(name, 'update').map((field) => [field.name, field.kind]))
    assert.equal(kinds('biography').biography, 'html')
    assert.equal(kinds('slideshare').embed, 'embed')
    assert.equal(kinds('accomplishment').start, 'date')
    assert.equal(kinds('accomplishment').description, 'longtext')
    assert.equal(kinds('education').date, 'year')
    assert.equal(kinds('fee').fee_min, 'number')
    assert.equal(kinds('availability').availability_keynote, 'flag')
    assert.equal(kinds('link').url, 'url')
    assert.equal(kinds('testimonial').email, 'email')
    const type = fieldsOfSection('accomplishment').find((field) => field.name === 'type')
    assert.deepEqual(type?.options, [
      { value: '71', label: 'Professional' },
      { value: '73', label: 'Personal' },
    ])
    const start = fieldsOfSection('accomplishment').find((field) => field.name === 'start')
    assert.deepEqual([start?.label, start?.required], ['Start', false])
  })

  test('the media desk’s fields: a switch, a UTC date and time, a list of tags, a zone to choose', () => {
    const fields = fieldsOf(EXPERT_SCHEMAS.update).filter((field) =>
      ['media_available', 'media_available_until', 'interview_languages', 'time_zone', 'pronouns'].includes(
        field.name,
      ),
    )
    assert.deepEqual(
      fields.map((field) => [field.name, field.label, field.kind]),
      [
        ['media_available', 'Available for media', 'flag'],
        ['media_available_until', 'Available until', 'datetime'],
        ['interview_languages', 'Interview languages', 'tags'],
        ['time_zone', 'Time zone', 'time-zone'],
        ['pronouns', 'Pronouns', 'text'],
      ],
    )
    const stored = {
      media_available: 1,
      media_available_until: 1_796_135_400,
      interview_languages: ['en', 'fr-CA'],
      time_zone: 'Europe/Paris',
      pronouns: null,
    }
    const values = valuesOf(fields, stored)
    assert.deepEqual(values, {
      media_available: true,
      media_available_until: '2026-12-01T14:30',
      interview_languages: 'en, fr-CA',
      time_zone: 'Europe/Paris',
      pronouns: '',
    })
    const edited = {
      ...values,
      media_available_until: '2026-12-02T09:00',
      interview_languages: 'en; de ,',
      time_zone: '',
    }
    assert.deepEqual(bodyOf(fields, edited, 'update', values), {
      media_available_until: 1_796_202_000,
      interview_languages: ['en', 'de'],
      time_zone: '',
    })
    assert.deepEqual(bodyOf(fields, { ...values, interview_languages: '' }, 'update', values), {
      interview_languages: [],
    })
  })

  test('an expert’s identifiers have their titles, and each policy is a choice of its named values', () => {
    const fields = Object.fromEntries(fieldsOf(EXPERT_SCHEMAS.update).map((field) => [field.name, field]))
    assert.deepEqual(
      ['orcid', 'openalex_id', 'scopus_id'].map((name) => [fields[name]?.label, fields[name]?.kind]),
      [
        ['ORCID iD', 'text'],
        [fields.openalex_id?.label, 'text'],
        [fields.scopus_id?.label, 'text'],
      ],
    )
    for (const name of ['orcid_policy', 'openalex_policy', 'scopus_policy']) {
      assert.equal(fields[name]?.kind, 'choice', name)
      assert.deepEqual(
        fields[name]?.options.map((option) => option.value),
        ['auto_claim', 'suggest', 'auto_reject', 'ignore'],
        name,
      )
    }
    assert.equal(fields.orcid_policy?.label, 'ORCID iD policy')
    assert.equal(fields.orcid_policy?.options[0]?.label, 'Claim automatically')
  })

  test('only schema keywords decide: the title labels, the description hints, `x-input` picks the widget', () => {
    const [prose, date, named] = fieldsOf({
      type: 'object',
      properties: {
        prose: { type: 'integer', description: 'Start: unix time in seconds (not milliseconds)' },
        date: { type: 'integer', title: 'Start', description: 'When it starts', 'x-input': 'date' },
        named: {
          type: 'string',
          description: 'Kind: a professional, b personal',
          oneOf: [
            { const: 'a', title: 'Professional' },
            { const: 'b', title: 'Personal' },
          ],
        },
      },
    })
    assert.deepEqual(
      [prose?.kind, prose?.label],
      ['integer', 'Start: unix time in seconds (not milliseconds)'],
    )
    assert.deepEqual([date?.kind, date?.label, date?.hint], ['date', 'Start', 'When it starts'])
    assert.deepEqual(named?.options, [
      { value: 'a', label: 'Professional' },
      { value: 'b', label: 'Personal' },
    ])
  })

  test("a hint is in a person's words: `x-hint` first, and no note on clearing fields or unix seconds", () => {
    const fields = new Map(fieldsOf(EXPERT_SCHEMAS.update).map((field) => [field.name, field]))
    const hint = (name: string) => fields.get(name)?.hint
    assert.equal(
      hint('interview_languages'),
      'Language codes separated by commas, such as en, fr-CA or zh-Hant',
    )
    assert.match(hint('media_available_until') ?? '', /^Date and time in UTC\. From then on/)
    assert.equal(hint('time_zone'), 'Where you are, so that journalists can tell your local time')
    assert.match(hint('username') ?? '', /Links to the old address keep working$/)
    const date = fieldsOfSection('testimonial').find((field) => field.name === 'date')
    assert.deepEqual([date?.kind, date?.hint], ['date', ''], 'a calendar needs no word on unix seconds')
    for (const field of fields.values())
      assert.doesNotMatch(`${field.label} ${field.hint}`, /clears it|for none|unix time|null /, field.name)
  })

  test('required fields are those the create schema requires; the create-expert form leaves out what create refuses', () => {
    const required = (name: string) =>
      fieldsOfSection(name)
        .filter((field) => field.required)
        .map((field) => field.name)
    assert.deepEqual(required('education'), ['institution'])
    assert.deepEqual(required('link'), ['name', 'url'])
    const expert = fieldsOf(EXPERT_SCHEMAS.create).map((field) => field.name)
    assert.ok(
      expert.includes('firstname') && !expert.includes('is_published') && !expert.includes('is_private'),
    )
  })

  test('bodies: create sends what is filled; update only what changed, an emptied optional field as ""', () => {
    const fields = fieldsOfSection('accomplishment')
    const values = { ...valuesOf(fields), title: 'Prize', type: '73', start: '2026-01-01' }
    assert.deepEqual(bodyOf(fields, values, 'create'), { title: 'Prize', type: 73, start: 1767225600 })

    const stored = { id: 4, title: 'Prize', description: 'Old', type: 71, start: 1767225600, end: null }
    const original = valuesOf(fields, stored)
    assert.equal(original.start, '2026-01-01')
    const changed = { ...original, description: '', title: 'Grand prize' }
    assert.deepEqual(bodyOf(fields, changed, 'update', original), { title: 'Grand prize', description: '' })
    assert.deepEqual(bodyOf(fields, original, 'update', original), {})
  })

  test('posts, questions, answers and the organization: scalar fields generated, lists and objects left to their screens', () => {
    const post = fieldsOf(CONTENT_SCHEMAS.post.create)
    assert.deepEqual(
      post.map((field) => [field.name, field.kind, field.label]),
      [
        ['title', 'text', 'Title'],
        ['html', 'html', 'Body'],
        ['featured_image', 'url', 'Featured image'],
        ['published', 'flag', 'Published flag (default 0)'],
        ['published_date', 'date', 'Publication time'],
      ],
    )
    const answer = fieldsOf(CONTENT_SCHEMAS.answer.create)
    assert.deepEqual(
      answer.map((field) => [field.name, field.kind, field.required]),
      [
        ['username', 'text', true],
        ['answer', 'html', true],
      ],
    )
    const directory = fieldsOf(ORGANIZATION_SCHEMA).find((field) => field.name === 'public_directory')
    assert.equal(directory?.kind, 'flag')
    assert.equal(directory?.label, 'Public directory')
    assert.match(directory?.hint ?? '', /^On: publish the directory pages/)
    assert.ok(!fieldsOf(ORGANIZATION_SCHEMA).some((field) => field.name === 'directory_inquiry_kinds'))
  })

  test('a number that is not one is sent as typed, so that the server’s message names the field', () => {
    const fields = fieldsOfSection('fee', 'update')
    assert.deepEqual(bodyOf(fields, { fee_min: 'ten', fee_max: '20.5', currency: 'usd' }, 'create'), {
      fee_min: 'ten',
      fee_max: 20.5,
      currency: 'usd',
    })
    const flags = fieldsOfSection('availability', 'update')
    const body = bodyOf(flags, { ...valuesOf(flags), availability_panelist: true }, 'create')
    assert.equal(body.availability_panelist, 1)
    assert.equal(body.availability_keynote, 0)
  })
})

describe('the generated inputs', () => {
  after(cleanup)

  test('every control has its label; the server’s message stands beside its field and describes it', () => {
    const fields = fieldsOfSection('education')
    const changes: [string, string | boolean][] = []
    render(
      <SchemaFields
        fields={fields}
        values={valuesOf(fields)}
        onChange={(name, value) => changes.push([name, value])}
        errors={{ institution: 'must be a text of at least 1 character' }}
      />,
    )
    for (const label of ['Institution', 'Degree', 'Major', 'Description', 'Year of graduation'])
      assert.ok(screen.getByLabelText(new RegExp(`^${label}`)), label)
    const institution = screen.getByLabelText(/^Institution/)
    assert.equal(institution.getAttribute('aria-invalid'), 'true')
    assert.equal(institution.hasAttribute('required'), true)
    const describedBy = institution.getAttribute('aria-describedby') ?? ''
    const message = document.getElementById(describedBy)
    assert.equal(message?.textContent, 'Institution must be a text of at least 1 character')
    assert.equal(screen.getByLabelText(/^Year of graduation/).getAttribute('type'), 'number')

    fireEvent.change(screen.getByLabelText(/^Degree/), { target: { value: 'PhD' } })
    assert.deepEqual(changes, [['degree', 'PhD']])
    cleanup()
  })

  test('a choice offers its named values and a flag is a checkbox', () => {
    const fields = [...fieldsOfSection('accomplishment'), ...fieldsOfSection('availability', 'update')]
    render(<SchemaFields fields={fields} values={valuesOf(fields)} onChange={() => {}} />)
    const kind = screen.getByLabelText(/^Kind/)
    assert.equal(kind.tagName, 'SELECT')
    assert.deepEqual(
      [...kind.querySelectorAll('option')].map((option) => option.textContent),
      ['—', 'Professional', 'Personal'],
    )
    assert.equal(screen.getByLabelText(/^Available as keynote speaker/).getAttribute('type'), 'checkbox')
    cleanup()
  })
})

describe('the rich-text editor keeps to the server’s sanitizer', () => {
  const roundTrip = (html: string) => {
    const editor = new Editor({ extensions: RICH_TEXT_EXTENSIONS, content: html, injectCSS: false })
    try {
      return editor.getHTML()
    } finally {
      editor.destroy()
    }
  }

  /** The sanitizer writes void elements as `<br />`: the same markup. */
  const sameMarkup = (html: string) => html.replaceAll(/<(br|hr)>/g, '<$1 />')

  test('everything the editor can make is stored exactly as made', () => {
    const made = roundTrip(
      '<h2>Research</h2><p><strong>Bold</strong>, <em>italic</em>, <u>underlined</u>, <s>struck</s>, <code>code</code>' +
        ' and <a href="https://example.org/x?a=1&amp;b=2">a link</a>, <a href="mailto:a@example.org">mail</a>.<br>Next line</p>' +
        '<ul><li><p>one</p></li></ul><ol start="3"><li><p>three</p></li></ol><blockquote><p>Quoted</p></blockquote><hr>' +
        '<h3>Smaller</h3><h4>Smallest</h4>',
    )
    for (const part of [
      '<h2>',
      '<strong>',
      '<em>',
      '<u>',
      '<s>',
      '<code>',
      '<a ',
      '<br>',
      '<ul>',
      '<ol start="3">',
      '<blockquote>',
      '<hr>',
    ])
      assert.ok(made.includes(part), `${part} in ${made}`)
    assert.equal(sanitizeHtml(made), sameMarkup(made))
  })

  test('what the sanitizer would drop never reaches the editor’s output', () => {
    const made = roundTrip(
      '<h1 style="color:red" onclick="x()">Title</h1><script>alert(1)</script><p><a href="javascript:alert(1)">bad</a>' +
        '<img src="data:image/png;base64,AAAA"></p><pre><code class="language-js">let a</code></pre><iframe src="https://evil.example"></iframe>',
    )
    assert.ok(!/script|javascript:|data:|onclick|style=|class=|<h1|<iframe/.test(made), made)
    assert.equal(sanitizeHtml(made), sameMarkup(made))
  })
})
