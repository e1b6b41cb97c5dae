import { useQuery } from '@tanstack/react-query'
import { type FormEvent, useId, useState } from 'react'
import { api } from '../api/client.ts'
import { useKeptForReview } from '../api/drafts.ts'
import { ApiFailure, dataOf, messageOf } from '../api/failure.ts'
import { type SectionPath, sectionWrite } from '../api/profile-writes.ts'
import { ElementForm } from '../forms/ElementForm.tsx'
import { type FieldSpec, fieldsOf } from '../forms/model.ts'
import { type SectionSchema, sectionLabel } from '../schemas.ts'
import { Notice } from '../ui/parts.tsx'
import type { Save } from './profile-data.ts'
import { ReorderButtons, useReorder } from './reorder.tsx'

interface Props {
  section: SectionSchema
  organization: number
  username: string
  elements: readonly Record<string, unknown>[]
  save: Save
  /** Open when the screen opens. */
  open?: boolean
}

/** One section of the profile: its form(s) generated from the section's write schemas. */
export function SectionEditor({ section, organization, username, elements, save, open = false }: Props) {
  const label = sectionLabel(section.name)
  const path = { organization, username, section: section.name }
  const keptForReview = useKeptForReview(organization)
  /** Resolves to `KEPT_FOR_REVIEW` when the write was kept as a draft and submitted for review. */
  const write = async (
    method: 'POST' | 'PUT' | 'DELETE',
    id?: SectionPath['id'],
    body?: Record<string, unknown>,
  ) =>
    keptForReview(
      await save((ifMatch) =>
        sectionWrite(method, { ...path, ...(id === undefined ? {} : { id }) }, ifMatch, body),
      ),
    )
  const createFields = fieldsOf(section.create)
  const updateFields = fieldsOf(section.update)
  const ids = elements.map((element) => Number(element.id))
  const reorder = useReorder(ids, (order) => write('PUT', 'order', { ids: order }))

  return (
    <details className="card section" open={open || undefined}>
      <summary>
        <h3>{label}</h3> <span className="muted">({elements.length})</span>
      </summary>
      {section.shape === 'names' ? (
        <NameSet
          label={label}
          elements={elements}
          write={write}
          suggestions={suggestionsOf(section.name)}
          organization={organization}
        />
      ) : section.shape === 'single' ? (
        <ElementForm
          title={label}
          fields={updateFields}
          element={elements[0]}
          mode="update"
          submitLabel={`Save ${label.toLowerCase()}`}
          onSave={(body) => write('POST', undefined, body)}
          {...(elements[0] ? { onRemove: () => write('DELETE') } : {})}
        />
      ) : (
        <>
          {elements.length === 0 ? <p className="empty">No {label.toLowerCase()} yet.</p> : null}
          <ol className="elements">
            {elements.map((element, index) => {
              const id = Number(element.id)
              return (
                <li key={id}>
                  <ReorderButtons
                    reorder={reorder}
                    id={id}
                    name={elementName(element, updateFields) ?? `${label} ${index + 1}`}
                  />
                  <ElementForm
                    title={`${label} ${index + 1}`}
                    fields={updateFields}
                    element={element}
                    mode="update"
                    submitLabel="Save"
                    onSave={(body) => write('PUT', id, body)}
                    onRemove={() => write('DELETE', id)}
                  />
                </li>
              )
            })}
          </ol>
          <p className="visually-hidden" role="status">
            {reorder.announcement}
          </p>
          {reorder.failure ? (
            <p className="form-error" role="alert">
              {messageOf(reorder.failure)}
            </p>
          ) : null}
          <div className="add-element">
            <h4>Add to {label.toLowerCase()}</h4>
            <ElementForm
              title={`New ${label.toLowerCase()}`}
              fields={createFields}
              mode="create"
              submitLabel="Add"
              resetAfterSave
              onSave={(body) => write('POST', undefined, body)}
            />
          </div>
        </>
      )}
    </details>
  )
}

/** What names an element to a person: its first filled text field ("Rain", "MIT"). */
function elementName(
  element: Readonly<Record<string, unknown>>,
  fields: readonly FieldSpec[],
): string | undefined {
  for (const field of fields) {
    const value = element[field.name]
    if (typeof value === 'string' && value.trim() !== '')
      return value
        .replace(/<[^>]*>/g, '')
        .trim()
        .slice(0, 60)
  }
  return undefined
}

/** The search facet that counts a names section's values across the organization's experts. */
type NameFacet = 'topics' | 'industries' | 'categories' | 'tags'
interface Suggestions {
  listId: string
  facet: NameFacet
}
const FACET_OF: Readonly<Record<string, NameFacet | undefined>> = {
  topic: 'topics',
  industry: 'industries',
  category: 'categories',
  tag: 'tags',
}

function suggestionsOf(section: string): Suggestions | undefined {
  const facet = FACET_OF[section]
  return facet ? { listId: `suggest-${section}`, facet } : undefined
}

/**
 * The names other profiles of the organization already use (the search's facet counts, most used
 * first), offered while typing so that one topic is not spelled three ways.
 */
function NameSuggestions({ organization, listId, facet }: { organization: number } & Suggestions) {
  const used = useQuery({
    queryKey: ['name-suggestions', organization, facet],
    staleTime: 60_000,
    queryFn: async () =>
      dataOf(
        await api.GET('/v2/organization/{corporation}/expert', {
          params: {
            path: { corporation: organization },
            query: { status: 'all', access: 'all', page_size: 1 },
          },
        }),
      ),
  })
  const names = used.data ? used.data.aggregations[facet].map((bucket) => bucket.key) : []
  return (
    <datalist id={listId}>
      {names.map((name) => (
        <option key={name} value={name} />
      ))}
    </datalist>
  )
}

/** Topics, industries, categories, tags, profile types: names added and removed one by one. */
function NameSet({
  label,
  elements,
  write,
  suggestions,
  organization,
}: {
  label: string
  elements: readonly Record<string, unknown>[]
  write: (method: 'POST' | 'DELETE', id?: number, body?: Record<string, unknown>) => Promise<unknown>
  suggestions: Suggestions | undefined
  organization: number
}) {
  const inputId = useId()
  const [name, setName] = useState('')
  const [failure, setFailure] = useState<unknown>()
  const [notice, setNotice] = useState('')
  const run = async (action: () => Promise<unknown>) => {
    setFailure(undefined)
    setNotice('')
    try {
      const answer = await action()
      if (typeof answer === 'string') setNotice(answer)
      return true
    } catch (error) {
      setFailure(error)
      return false
    }
  }
  const add = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    if (await run(() => write('POST', undefined, { name }))) setName('')
  }
  const fieldError = failure instanceof ApiFailure ? failure.fields.name : undefined
  return (
    <div className="name-set">
      {elements.length === 0 ? <p className="empty">No {label.toLowerCase()} yet.</p> : null}
      <ul className="chips" aria-label={label}>
        {elements.map((element) => {
          const shown = String(element.name ?? element.tag ?? '')
          return (
            <li key={String(element.id)} className="chip">
              {shown}
              <button
                type="button"
                aria-label={`Remove ${shown}`}
                onClick={() => void run(() => write('DELETE', Number(element.id)))}
              >
                ×
              </button>
            </li>
          )
        })}
      </ul>
      <form onSubmit={add} className="inline-form">
        <label htmlFor={inputId}>Add to {label.toLowerCase()}</label>
        <input
          id={inputId}
          value={name}
          onChange={(event) => setName(event.target.value)}
          aria-invalid={fieldError ? true : undefined}
          list={suggestions?.listId}
          autoComplete="off"
        />
        {suggestions ? <NameSuggestions organization={organization} {...suggestions} /> : null}
        <button type="submit">Add</button>
      </form>
      {failure ? (
        <p className="form-error" role="alert">
          {fieldError ? `The name ${fieldError}` : messageOf(failure)}
        </p>
      ) : null}
      {notice ? <Notice>{notice}</Notice> : null}
    </div>
  )
}
