import { useEffect, useId, useRef, useState } from 'react'
import { api } from '../api/client.ts'
import { dataOf } from '../api/failure.ts'
import { FailureNote, useAction } from '../ui/action.tsx'

/** Whose profile: an expert (`/expert/...`) or a staff member (`/staff/...`). */
export type ProfileKind = 'expert' | 'staff'

const NOUN: Record<ProfileKind, string> = { expert: 'expert', staff: 'staff member' }

/** `DELETE .../expert/{username}` or `.../staff/{username}`: the profile, its sections and its photo. */
async function deleteProfile(kind: ProfileKind, organization: number, username: string): Promise<void> {
  const params = { params: { path: { corporation: organization, username } } }
  if (kind === 'expert') dataOf(await api.DELETE('/v2/organization/{corporation}/expert/{username}', params))
  else dataOf(await api.DELETE('/v2/organization/{corporation}/staff/{username}', params))
}

/**
 * "Delete Ada Okafor": a button that opens a dialog naming the profile, which deletes it only once its
 * name is typed, then calls `onDeleted` (the screen goes back to its list).
 */
export function DeleteProfile({
  kind,
  organization,
  username,
  name,
  onDeleted,
  compact = false,
}: {
  kind: ProfileKind
  organization: number
  username: string
  name: string
  onDeleted: () => unknown
  /** A list row's small button rather than the profile's "Delete this expert" panel. */
  compact?: boolean
}) {
  const [open, setOpen] = useState(false)
  const opener = useRef<HTMLButtonElement>(null)
  const close = () => {
    setOpen(false)
    opener.current?.focus()
  }
  const button = (
    <button type="button" className="danger" ref={opener} onClick={() => setOpen(true)}>
      Delete {name}
    </button>
  )
  return (
    <>
      {compact ? (
        button
      ) : (
        <section className="card danger-zone" aria-labelledby="delete-title">
          <h2 id="delete-title">Delete this {NOUN[kind]}</h2>
          <p>The profile, its sections and its photo are deleted at once, for good.</p>
          {button}
        </section>
      )}
      {open ? (
        <ConfirmDelete
          kind={kind}
          name={name}
          onCancel={close}
          onConfirm={async () => {
            await deleteProfile(kind, organization, username)
            setOpen(false)
            await onDeleted()
          }}
        />
      ) : null}
    </>
  )
}

/** The modal dialog: "Delete Ada Okafor?", the name to type, Delete and Cancel. */
function ConfirmDelete({
  kind,
  name,
  onCancel,
  onConfirm,
}: {
  kind: ProfileKind
  name: string
  onCancel: () => void
  onConfirm: () => Promise<void>
}) {
  const dialog = useRef<HTMLDialogElement>(null)
  const titleId = useId()
  const [typed, setTyped] = useState('')
  const { busy, failure, run } = useAction()
  useEffect(() => {
    const element = dialog.current
    if (element && !element.open) element.showModal()
  }, [])
  const matches = typed.trim().toLowerCase() === name.trim().toLowerCase()
  return (
    <dialog
      ref={dialog}
      className="confirm-dialog"
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault()
        onCancel()
      }}
    >
      <form
        method="dialog"
        onSubmit={(event) => {
          event.preventDefault()
          if (!matches) return
          void run(async () => {
            await onConfirm()
            return undefined
          })
        }}
      >
        <h2 id={titleId}>Delete {name}?</h2>
        <p>
          The {NOUN[kind]}’s profile, every section of it and its photo are deleted. This cannot be undone.
        </p>
        <label>
          <span>
            Type <strong>{name}</strong> to confirm
          </span>
          <input value={typed} onChange={(event) => setTyped(event.target.value)} autoComplete="off" />
        </label>
        <FailureNote failure={failure} />
        <div className="actions">
          <button type="submit" className="danger" disabled={!matches || busy}>
            {busy ? 'Deleting…' : `Delete ${name}`}
          </button>
          <button type="button" onClick={onCancel} disabled={busy}>
            Cancel
          </button>
        </div>
      </form>
    </dialog>
  )
}
