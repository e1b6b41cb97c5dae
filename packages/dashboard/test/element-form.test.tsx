import './dom.ts'
import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'
import { cleanup, fireEvent, render, screen } from '@testing-library/react'
import { ElementForm } from '../src/forms/ElementForm.tsx'
import { fieldsOf } from '../src/forms/model.ts'
import { SECTION_SCHEMAS } from '../src/schemas.ts'

const article = SECTION_SCHEMAS.find((section) => section.name === 'article')
assert.ok(article)
const fields = fieldsOf(article.update)
const stored = { id: 7, title: 'Rain', publisher: null, authors: null, details: null, date: null, url: null }

describe('an element’s form across new reads of its element', () => {
  after(cleanup)

  test('what is typed survives a read that only moved the element; a changed element is shown as stored', () => {
    const form = (element: Record<string, unknown>) => (
      <ElementForm
        title="Article 1"
        fields={fields}
        element={element}
        mode="update"
        submitLabel="Save"
        onSave={async () => {}}
      />
    )
    const { rerender } = render(form(stored))
    const title = screen.getByLabelText(/^Title/) as HTMLInputElement
    fireEvent.change(title, { target: { value: 'Drizzle' } })
    // A reordered section reads every element into a new object with the same content.
    rerender(form({ ...stored }))
    assert.equal(title.value, 'Drizzle')
    rerender(form({ ...stored, title: 'Storm' }))
    assert.equal(title.value, 'Storm')
  })
})
