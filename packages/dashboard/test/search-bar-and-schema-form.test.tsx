import './dom.ts'
import assert from 'node:assert/strict'
import { afterEach, describe, test } from 'node:test'
import { cleanup, fireEvent, render, screen } from '@testing-library/react'
import { useState } from 'react'
import { ApiFailure } from '../src/api/failure.ts'
import { type FormValues, fieldsOf, valuesOf } from '../src/forms/model.ts'
import { SchemaForm } from '../src/forms/SchemaForm.tsx'
import { EXPERT_SCHEMAS } from '../src/schemas.ts'
import { SearchBar, type StatusFilter } from '../src/ui/SearchBar.tsx'

afterEach(cleanup)

describe('the search bar', () => {
  test('searches with what the box holds when submitted, and names the status chosen', () => {
    const searched: string[] = []
    const statuses: (StatusFilter | undefined)[] = []
    render(
      <SearchBar
        label="Search experts"
        q="curie"
        status={undefined}
        onSearch={(q) => searched.push(q)}
        onStatus={(status) => statuses.push(status)}
      >
        <span>More filters</span>
      </SearchBar>,
    )
    const box = screen.getByLabelText<HTMLInputElement>('Search experts')
    assert.equal(box.value, 'curie')
    assert.equal(screen.getByLabelText<HTMLSelectElement>('Status').value, 'all')
    fireEvent.change(box, { target: { value: 'franklin' } })
    assert.deepEqual(searched, [], 'typing alone does not search')
    fireEvent.click(screen.getByRole('button', { name: 'Search' }))
    assert.deepEqual(searched, ['franklin'])
    fireEvent.change(screen.getByLabelText('Status'), { target: { value: 'unpublished' } })
    assert.deepEqual(statuses, ['unpublished'])
    assert.ok(screen.getByText('More filters'))
  })
})

describe('the generated form', () => {
  const fields = fieldsOf(EXPERT_SCHEMAS.create)

  function Form({ failure, saved }: { failure?: unknown; saved: FormValues[] }) {
    const [values, setValues] = useState<FormValues>(() => valuesOf(fields))
    return (
      <SchemaForm
        aria-label="Add an expert"
        onSubmit={(event) => {
          event.preventDefault()
          saved.push(values)
        }}
        fields={fields}
        values={values}
        onValues={setValues}
        failure={failure}
        actions={<button type="submit">Create expert</button>}
      >
        <h2>Add an expert</h2>
      </SchemaForm>
    )
  }

  test('keeps what is typed and submits it', () => {
    const saved: FormValues[] = []
    render(<Form saved={saved} />)
    fireEvent.change(screen.getByLabelText(/^First name/), { target: { value: 'Ada' } })
    fireEvent.click(screen.getByRole('button', { name: 'Create expert' }))
    assert.equal(saved[0]?.firstname, 'Ada')
    assert.equal(screen.queryByRole('alert'), null, 'no failure, no message')
  })

  test('shows the failure’s message above the actions and its field messages beside their fields', () => {
    const failure = new ApiFailure('The request is invalid.', 400, 'invalid_request', {
      email: 'must be a valid email address',
    })
    render(<Form saved={[]} failure={failure} />)
    assert.equal(screen.getByRole('alert').textContent, 'The request is invalid.')
    const email = screen.getByLabelText(/^Email address( \*)?$/)
    assert.equal(email.getAttribute('aria-invalid'), 'true')
    const described = String(email.getAttribute('aria-describedby'))
      .split(' ')
      .map((id) => document.getElementById(id)?.textContent)
      .join(' ')
    assert.match(described, /must be a valid email address/)
  })
})
