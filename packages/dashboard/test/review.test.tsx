import './dom.ts'
import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { cleanup, fireEvent, render, screen } from '@testing-library/react'
import { type DraftSummary, draftOf, KEPT_FOR_REVIEW } from '../src/api/drafts.ts'
import { ElementForm } from '../src/forms/ElementForm.tsx'
import { fieldsOf } from '../src/forms/model.ts'
import { SECTION_SCHEMAS } from '../src/schemas.ts'
import { draftAuthorLine, draftPartName, draftRecordName } from '../src/screens/draft-words.ts'

const summary = (overrides: Partial<DraftSummary> = {}): DraftSummary => ({
  id: 4,
  record: { kind: 'profile', id: 9, username: 'ada-okafor', title: 'Ada Okafor' },
  part: 'tagline',
  state: 'submitted',
  author: { id: 3, name: 'Ada Okafor', delegate: false },
  reviewer: null,
  comment: null,
  publish_at: null,
  created_at: 1_767_225_600,
  updated_at: 1_767_225_600,
  ...overrides,
})

describe('review: drafts in words, and a save kept for review', () => {
  after(cleanup)

  test('a write’s answer names its draft whether it is the envelope or its data; a live write names none', () => {
    assert.equal(draftOf({ success: true, data: { draft: { id: 12, state: 'open' } } }), 12)
    assert.equal(draftOf({ draft: { id: 13, state: 'open' } }), 13)
    assert.equal(draftOf({ success: true, data: { updated: true } }), undefined)
    assert.equal(draftOf({ updated: true }), undefined)
    assert.equal(draftOf(undefined), undefined)
    assert.equal(draftOf({ draft: { id: '12' } }), undefined)
  })

  test('a draft names its record, its part and its author, and a delegate’s says for whom', () => {
    assert.equal(draftRecordName(summary()), 'Ada Okafor')
    assert.equal(draftPartName(summary()), 'Tagline')
    assert.equal(draftPartName(summary({ part: 'account' })), 'Account')
    assert.equal(draftAuthorLine(summary()), 'by Ada Okafor')
    assert.equal(
      draftAuthorLine(summary({ author: { id: 5, name: 'Ben Ito', delegate: true } })),
      'by Ben Ito, as delegate of Ada Okafor',
    )
    assert.equal(
      draftAuthorLine(summary({ author: { id: 5, name: null, delegate: false } })),
      'by a person since removed',
    )
    const post = summary({
      record: { kind: 'spotlight', id: 2, username: null, title: 'Reefs' },
      part: 'item',
    })
    assert.equal(draftRecordName(post), 'Post “Reefs”')
    assert.equal(draftPartName(post), 'The post')
    assert.equal(
      draftRecordName(summary({ record: { kind: 'question', id: 6, username: null, title: null } })),
      'Question 6',
    )
  })

  test('a save kept for review says so instead of "Saved." and shows the element as stored again', async () => {
    const tagline = SECTION_SCHEMAS.find((section) => section.name === 'tagline')
    assert.ok(tagline)
    const sent: Record<string, unknown>[] = []
    render(
      // No garbage-collection timer (gcTime Infinity schedules none): a mutation's would keep the test process alive.
      <QueryClientProvider client={new QueryClient({ defaultOptions: { mutations: { gcTime: Infinity } } })}>
        <ElementForm
          title="Tagline"
          fields={fieldsOf(tagline.update)}
          element={{ id: 1, tagline: 'Maps the ocean floor' }}
          mode="update"
          submitLabel="Save tagline"
          onSave={async (body) => {
            sent.push(body)
            return KEPT_FOR_REVIEW
          }}
        />
      </QueryClientProvider>,
    )
    const field = screen.getByRole('textbox', { name: /^Tagline/ })
    assert.ok(field instanceof HTMLInputElement)
    fireEvent.change(field, { target: { value: 'Maps the ridges' } })
    fireEvent.click(screen.getByRole('button', { name: 'Save tagline' }))
    assert.equal((await screen.findByRole('status')).textContent, KEPT_FOR_REVIEW)
    assert.deepEqual(sent, [{ tagline: 'Maps the ridges' }])
    assert.equal(field.value, 'Maps the ocean floor')
    cleanup()
  })
})
