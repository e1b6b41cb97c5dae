import './dom.ts'
import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'
import { cleanup, render, screen, within } from '@testing-library/react'
import type { Me } from '../src/api/session.ts'
import { findsExperts } from '../src/roles.ts'
import { MAX_TEXT, textProblem } from '../src/screens/FindExperts.tsx'
import { MatchedExperts } from '../src/ui/MatchedExperts.tsx'

const blankAvatar = { small: '', medium: '', large: '', original: '' }

describe('finding experts by meaning', () => {
  after(cleanup)

  test('a text is refused in the page when empty or over 20,000 characters, with the reason', () => {
    assert.match(textProblem('   ') ?? '', /Paste a text first/)
    assert.equal(textProblem('x'.repeat(MAX_TEXT)), undefined)
    assert.match(textProblem('x'.repeat(MAX_TEXT + 1)) ?? '', /20,001 characters; at most 20,000/)
  })

  test('the menu entry is for every role that reads experts, not for an expert person', () => {
    const person = (role: Me['role'], scope: string): Me => ({
      id: 1,
      email: 'a@example.edu',
      name: '',
      role,
      organization: 1,
      expert: null,
      scope,
      password_change_required: false,
      session_expires_at: '2030-01-01T00:00:00Z',
    })
    assert.ok(findsExperts(person('owner', 'read write admin')))
    assert.ok(findsExperts(person('editor', 'read write')))
    assert.ok(findsExperts(person('inquiries', 'read inquiries:read inquiries:handle')))
    assert.ok(!findsExperts(person('expert', 'read write inquiries:read')))
  })

  test('reasons are grouped by kind, concepts first, then co-authored works, then words', () => {
    render(
      <MatchedExperts
        label="Matching experts"
        linked={false}
        experts={[
          {
            username: 'ada-okafor',
            firstname: 'Ada',
            lastname: 'Okafor',
            job_title: 'Professor of Coastal Engineering',
            avatar: blankAvatar,
            score: 0.03,
            reasons: [
              { kind: 'term', label: 'surge' },
              { kind: 'concept', label: 'Flood risk' },
              { kind: 'coauthor', label: 'Storm surge barriers' },
              { kind: 'concept', label: 'Hydrology' },
            ],
          },
        ]}
      />,
    )
    const row = within(screen.getByRole('list', { name: 'Matching experts' })).getByRole('listitem')
    assert.deepEqual(
      within(row)
        .getAllByRole('term')
        .map((term) => term.textContent),
      ['Concepts', 'Co-authored', 'Words in common'],
    )
    assert.deepEqual(
      within(row)
        .getAllByRole('definition')
        .map((definition) => definition.textContent),
      ['Flood risk · Hydrology', 'Storm surge barriers', 'surge'],
    )
    assert.ok(within(row).getByText('Ada Okafor'))
  })
})
