import { useQuery, useQueryClient } from '@tanstack/react-query'
import { getRouteApi, useNavigate } from '@tanstack/react-router'
import { useMemo, useState } from 'react'
import {
  addAnswer,
  changeAnswer,
  createContent,
  deleteContent,
  readContent,
  removeAnswer,
  updateContent,
} from '../api/content.ts'
import { messageOf } from '../api/failure.ts'
import { useSignedIn } from '../api/session.ts'
import { UnsavedChangesGuard } from '../forms/dirty.tsx'
import { ElementForm } from '../forms/ElementForm.tsx'
import { fieldsOf } from '../forms/model.ts'
import { CONTENT_SCHEMAS } from '../schemas.ts'
import { NameList } from '../ui/NameList.tsx'
import { ErrorNote, Loading, Notice } from '../ui/parts.tsx'
import { type ContentItem, type ContentKind, POSTS, QUESTIONS } from './content-kinds.ts'
import { postVersions, questionVersions, VersionHistory } from './VersionHistory.tsx'

const postRoute = getRouteApi('/signed-in/posts/$id')
const questionRoute = getRouteApi('/signed-in/questions/$id')

export function PostScreen() {
  return <ContentScreen kind={POSTS} id={postRoute.useParams().id} />
}

export function QuestionScreen() {
  return <ContentScreen kind={QUESTIONS} id={questionRoute.useParams().id} />
}

/**
 * A new item (`new`; as the "Add an expert" form, it does not hold the person back when leaving, since
 * the save itself leaves for the new item's page), or an existing one, whose forms warn of unsaved changes.
 */
function ContentScreen({ kind, id }: { kind: ContentKind; id: string }) {
  if (id === 'new') return <CreateItem kind={kind} />
  return (
    <UnsavedChangesGuard>
      <EditItem kind={kind} id={Number(id)} />
    </UnsavedChangesGuard>
  )
}

function CreateItem({ kind }: { kind: ContentKind }) {
  const me = useSignedIn()
  const navigate = useNavigate()
  const queries = useQueryClient()
  const fields = fieldsOf(kind.schema.create)
  return (
    <div className="content-editor">
      <h1>New {kind.singular}</h1>
      <p className="muted">
        Fields marked * are required. Tags{kind.kind === 'post' ? ', tagged experts' : ', answers'} and the
        search engines' fields come after the first save.
      </p>
      <section className="card">
        <ElementForm
          title={`New ${kind.singular}`}
          fields={fields}
          mode="create"
          submitLabel={`Create ${kind.singular}`}
          onSave={async (body) => {
            const id = await createContent(kind, me.organization, body)
            await queries.invalidateQueries({ queryKey: ['content', kind.kind] })
            await navigate({ to: `${kind.route}/$id`, params: { id: String(id) } })
          }}
        />
      </section>
    </div>
  )
}

const itemKey = (kind: ContentKind, corporation: number, id: number) =>
  ['content', kind.kind, corporation, 'item', id] as const

function EditItem({ kind, id }: { kind: ContentKind; id: number }) {
  const me = useSignedIn()
  const item = useQuery({
    queryKey: itemKey(kind, me.organization, id),
    queryFn: () => readContent(kind, me.organization, id),
  })
  if (item.isPending) return <Loading what={`the ${kind.singular}`} />
  if (item.isError) return <ErrorNote error={item.error} retry={() => void item.refetch()} />
  return <ItemEditor kind={kind} id={id} item={item.data} />
}

function ItemEditor({ kind, id, item }: { kind: ContentKind; id: number; item: ContentItem }) {
  const me = useSignedIn()
  const queries = useQueryClient()
  const navigate = useNavigate()
  const [failure, setFailure] = useState<unknown>()
  const [notice, setNotice] = useState('')
  const corporation = me.organization
  /** Every write of this screen, then the item and the lists read again. */
  const save = async (write: () => Promise<unknown>) => {
    await write()
    await queries.invalidateQueries({ queryKey: ['content', kind.kind] })
  }
  const update = (body: Record<string, unknown>) => save(() => updateContent(kind, corporation, id, body))
  /**
   * A name list's write: the item's names read again, its other fields kept as they are (a form being
   * filled in beside the chips keeps what is typed there), and the lists read again.
   */
  const writeNames = (field: 'tags' | 'tagged') => async (names: string[]) => {
    await updateContent(kind, corporation, id, { [field]: names })
    const fresh = await readContent(kind, corporation, id)
    queries.setQueryData<ContentItem>(itemKey(kind, corporation, id), (old) =>
      old ? { ...old, [field]: fresh[field] } : fresh,
    )
    await queries.invalidateQueries({
      queryKey: ['content', kind.kind, corporation],
      predicate: (query) => query.queryKey[3] !== 'item',
    })
  }
  // Stable across renders: a new read of the chips must not reset what is being typed in the form.
  const fields = useMemo(
    () => fieldsOf(kind.schema.update).filter((field) => field.name !== 'published'),
    [kind],
  )
  const published = item.element.published === 1
  const title = String(item.element[kind.titleField] ?? '')

  const act = async (action: () => Promise<unknown>, done: string) => {
    setFailure(undefined)
    setNotice('')
    try {
      await action()
      setNotice(done)
    } catch (error) {
      setFailure(error)
    }
  }
  const remove = () => {
    if (!window.confirm(`Delete this ${kind.singular}? This cannot be undone.`)) return
    void act(async () => {
      await deleteContent(kind, corporation, id)
      queries.removeQueries({ queryKey: itemKey(kind, corporation, id) })
      await queries.invalidateQueries({ queryKey: ['content', kind.kind] })
      await navigate({ to: kind.route })
    }, 'Deleted.')
  }

  return (
    <div className="content-editor">
      <div className="page-head">
        <h1>{title}</h1>
        <span className={published ? 'badge ok' : 'badge'}>{published ? 'Published' : 'Draft'}</span>
      </div>
      <section className="card publish-panel" aria-labelledby="publish-title">
        <h2 id="publish-title">Publishing</h2>
        <p>
          {published
            ? `This ${kind.singular} is published: websites and the public directory show it.`
            : `This ${kind.singular} is a draft: only the organization's staff see it.`}
        </p>
        <div className="actions">
          <button
            type="button"
            className={published ? undefined : 'primary'}
            onClick={() =>
              void act(
                () => update({ published: published ? 0 : 1 }),
                published ? 'Unpublished.' : 'Published.',
              )
            }
          >
            {published ? 'Unpublish' : 'Publish'}
          </button>
          <button type="button" className="danger" onClick={remove}>
            Delete {kind.singular}
          </button>
        </div>
        {failure ? (
          <p className="form-error" role="alert">
            {messageOf(failure)}
          </p>
        ) : null}
        {notice ? <Notice>{notice}</Notice> : null}
      </section>
      <section className="card" aria-labelledby="content-title">
        <h2 id="content-title">{kind.noun}</h2>
        <ElementForm
          title={kind.noun}
          fields={fields}
          element={item.element}
          mode="update"
          submitLabel="Save"
          onSave={update}
        />
      </section>
      <SearchEngines kind={kind} seo={item.seo} save={(seo) => update({ seo })} />
      <section className="card" aria-labelledby="tags-title">
        <h2 id="tags-title">Tags</h2>
        <NameList label="Tags" inputLabel="Add a tag" names={item.tags} write={writeNames('tags')} />
      </section>
      {kind.kind === 'post' ? (
        <section className="card" aria-labelledby="tagged-title">
          <h2 id="tagged-title">Tagged experts</h2>
          <NameList
            label="Tagged experts"
            inputLabel="Tag an expert (username)"
            names={item.tagged}
            write={writeNames('tagged')}
          />
        </section>
      ) : (
        <Answers corporation={corporation} id={id} item={item} save={save} />
      )}
      <VersionHistory
        source={kind.kind === 'post' ? postVersions(corporation, id) : questionVersions(corporation, id)}
        // Any change to the item as read (its fields, tags, tagged experts) may have kept a version.
        revision={JSON.stringify(item)}
        writable
        onRestored={() => queries.invalidateQueries({ queryKey: ['content', kind.kind] })}
      />
    </div>
  )
}

/**
 * The page metadata of CONTRACT §7, generated from the write's `seo` object and folded away: most
 * authors leave it to the fallbacks. The fields show what pages get, fallbacks included; only a changed
 * field is written, and one emptied and saved falls back again.
 */
function SearchEngines({
  kind,
  seo,
  save,
}: {
  kind: ContentKind
  seo: Record<string, unknown>
  save: (body: Record<string, unknown>) => Promise<unknown>
}) {
  const fields = useMemo(() => fieldsOf(kind.schema.update.properties?.seo ?? {}), [kind])
  return (
    <details className="card section search-engines">
      <summary>
        <h2>Search engines</h2>
      </summary>
      <p className="muted">
        Left empty, the page title is the {kind.titleField}, the description the text's beginning, the
        keywords the tags and the share image the featured image.
      </p>
      <ElementForm
        title="Search engines"
        fields={fields}
        element={seo}
        mode="update"
        submitLabel="Save"
        onSave={save}
      />
    </details>
  )
}

const answerSchema = CONTENT_SCHEMAS.answer
const answerCreateFields = fieldsOf(answerSchema.create)
const answerUpdateFields = fieldsOf(answerSchema.update).filter((field) => field.name !== 'username')

/** A question's answers, each written by one of the organization's experts. */
function Answers({
  corporation,
  id,
  item,
  save,
}: {
  corporation: number
  id: number
  item: ContentItem
  save: (write: () => Promise<unknown>) => Promise<void>
}) {
  return (
    <section className="card" aria-labelledby="answers-title">
      <h2 id="answers-title">Answers</h2>
      {item.answers.length === 0 ? <p className="empty">No answers yet.</p> : null}
      <ol className="elements">
        {item.answers.map((answer) => {
          const by = `${answer.firstname} ${answer.lastname}`.trim() || answer.username
          return (
            <li key={answer.id}>
              <h3>Answer by {by}</h3>
              <ElementForm
                title={`Answer by ${by}`}
                fields={answerUpdateFields}
                element={{ ...answer }}
                mode="update"
                submitLabel="Save answer"
                onSave={(body) => save(() => changeAnswer(corporation, id, answer.id, body))}
                onRemove={() => save(() => removeAnswer(corporation, id, answer.id))}
              />
            </li>
          )
        })}
      </ol>
      <div className="add-element">
        <h3>Add an answer</h3>
        <ElementForm
          title="New answer"
          fields={answerCreateFields}
          mode="create"
          submitLabel="Add answer"
          resetAfterSave
          onSave={(body) => save(() => addAnswer(corporation, id, body))}
        />
      </div>
    </section>
  )
}
