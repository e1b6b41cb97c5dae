import './dom.ts'
import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'
import { cleanup, render, screen } from '@testing-library/react'
import { ApiFailure } from '../src/api/failure.ts'
import { FieldChangeRow } from '../src/screens/VersionHistory.tsx'
import { fieldErrorsOf, formOf, unreadableLimits } from '../src/screens/Workflow.tsx'

const NO_GATE = { photo_min_px: null, tagline_max: null, biography_max: null, topics_min: null }

describe('the editorial screens’ parts', () => {
  after(cleanup)

  test('a word diff marks insertions and deletions by element and by words a screen reader says', () => {
    const { container } = render(
      <ul>
        <FieldChangeRow
          change={{
            field: 'biography[3].biography',
            before: '<p>She studies <strong>tides</strong>.</p>',
            after: '<p>She studies storm surges.</p>',
            words: [
              { op: 'same', text: 'She studies ' },
              { op: 'removed', text: 'tides' },
              { op: 'added', text: 'storm surges' },
              { op: 'same', text: '.' },
            ],
          }}
        />
      </ul>,
    )
    assert.equal(container.querySelector('del')?.textContent, '[removed: tides]')
    assert.equal(container.querySelector('ins')?.textContent, '[added: storm surges]')
    assert.equal(
      container.querySelector('.word-diff')?.textContent,
      'She studies [removed: tides][added: storm surges].',
    )
    cleanup()
  })

  test('a plain field shows before and after; nothing is "(none)", an object compact JSON', () => {
    render(
      <ul>
        <FieldChangeRow change={{ field: 'job_title', before: null, after: 'Oceanographer' }} />
        <FieldChangeRow change={{ field: 'seo', before: { title: 'A' }, after: '' }} />
      </ul>,
    )
    const values = screen.getAllByRole('definition').map((cell) => cell.textContent)
    assert.deepEqual(values, ['(none)', 'Oceanographer', '{"title":"A"}', '(none)'])
    cleanup()
  })

  test('the settings as a form: unset limits unticked, sections null as "every part"', () => {
    const form = formOf({
      review: { roles: ['expert'], sections: null },
      gate: { ...NO_GATE, tagline_max: 140 },
    })
    assert.deepEqual(form.roles, ['expert'])
    assert.equal(form.everyPart, true)
    assert.deepEqual(form.gate.tagline_max, { on: true, value: '140' })
    assert.deepEqual(form.gate.photo_min_px, { on: false, value: '' })
  })

  test('a ticked limit that is not a number is named before sending; the server’s names land beside their fields', () => {
    const form = formOf({ review: { roles: [], sections: null }, gate: NO_GATE })
    form.gate.topics_min = { on: true, value: 'many' }
    form.gate.tagline_max = { on: true, value: '-5' }
    assert.deepEqual(Object.keys(unreadableLimits(form)), ['topics_min'])
    const failure = new ApiFailure('invalid', 400, 'validation_failed', {
      tagline_max: 'must be an integer from 0 to 1000000, or null',
      1: 'must be one of the roles owner, admin, editor, inquiries, expert',
    })
    assert.deepEqual(fieldErrorsOf(failure), {
      'gate.tagline_max': 'must be an integer from 0 to 1000000, or null',
      'review.roles': 'must be one of the roles owner, admin, editor, inquiries, expert',
    })
  })
})
