import './dom.ts'
import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'
import { cleanup, fireEvent, render, screen } from '@testing-library/react'
import { fieldsOf } from '../src/forms/model.ts'
import { CLIENT_SCHEMA, SCOPE_CHOICES, WEBHOOK_SCHEMA } from '../src/schemas.ts'
import { SecretOnce } from '../src/ui/SecretOnce.tsx'

describe('the integrations screen’s parts', () => {
  after(cleanup)

  test('a client’s scope choices are the server’s scopes, each described, the API’s default ticked', () => {
    assert.deepEqual(
      SCOPE_CHOICES.map((choice) => choice.name),
      ['read', 'read:public', 'write', 'inquiries:create', 'inquiries:read', 'inquiries:handle', 'admin'],
    )
    for (const choice of SCOPE_CHOICES) assert.ok(choice.description.length > 10, choice.name)
    // CONTRACT §13 and §14: the four of a client created without scopes; admin only when named.
    assert.deepEqual(
      SCOPE_CHOICES.filter((choice) => choice.default).map((choice) => choice.name),
      ['read', 'write', 'inquiries:create', 'inquiries:read'],
    )
    assert.deepEqual(
      fieldsOf(CLIENT_SCHEMA).map((field) => [field.name, field.kind, field.required]),
      [
        ['label', 'text', false],
        ['scope', 'text', false],
      ],
    )
    assert.deepEqual(
      fieldsOf(WEBHOOK_SCHEMA).map((field) => [field.name, field.kind, field.required]),
      [
        ['url', 'url', true],
        ['keep_secret', 'flag', false],
      ],
    )
  })

  test('a secret shown once is marked, takes the focus, and says so when the browser refuses to copy it', async () => {
    let closed = false
    const clipboard = Object.getOwnPropertyDescriptor(navigator, 'clipboard')
    Object.defineProperty(navigator, 'clipboard', { value: undefined, configurable: true })
    try {
      render(
        <SecretOnce
          title="The secret of “www”"
          label="Client secret"
          secret="s3cret"
          onClose={() => (closed = true)}
        />,
      )
      const field = screen.getByLabelText('Client secret')
      assert.equal((field as HTMLInputElement).value, 's3cret')
      assert.equal(document.activeElement, field)
      assert.match(field.getAttribute('aria-describedby') ?? '', /warning/)
      assert.match(
        screen.getByRole('region', { name: 'The secret of “www”' }).textContent ?? '',
        /will not be shown again/,
      )
      fireEvent.click(screen.getByRole('button', { name: 'Copy client secret' }))
      await screen.findByText(/The browser refused to copy/)
      fireEvent.click(screen.getByRole('button', { name: 'I have stored it' }))
      assert.ok(closed)
    } finally {
      if (clipboard) Object.defineProperty(navigator, 'clipboard', clipboard)
      else Reflect.deleteProperty(navigator, 'clipboard')
    }
  })
})
