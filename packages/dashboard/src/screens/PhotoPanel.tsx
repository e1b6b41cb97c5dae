import { type ChangeEvent, type MouseEvent, useEffect, useState } from 'react'
import type { components } from '../../../client/src/schema.ts'
import { messageOf } from '../api/failure.ts'
import { deleteAvatar, uploadAvatar } from '../api/profile-writes.ts'
import { useAction } from '../ui/action.tsx'
import type { Save } from './profile-data.ts'

interface Props {
  organization: number
  username: string
  /** The person's name, as the removal's confirmation names them. */
  name: string
  avatar: components['schemas']['Avatar']
  writable: boolean
  save: Save
}

const percent = (value: number) => `${Math.round(value * 100)}%`

/** What the server accepts (CONTRACT §16), checked here first so that a wrong file is never sent. */
const ACCEPTED_TYPES = ['image/jpeg', 'image/png', 'image/webp']
const MAX_BYTES = 4 * 1024 * 1024
const MIN_SIDE = 200
const MAX_PIXELS = 40_000_000

/** The picture's size in pixels, as the browser decodes it; undefined when it cannot read it. */
async function pixelSize(file: File): Promise<{ width: number; height: number } | undefined> {
  const url = URL.createObjectURL(file)
  try {
    const image = new Image()
    image.src = url
    await image.decode()
    return { width: image.naturalWidth, height: image.naturalHeight }
  } catch {
    return undefined
  } finally {
    URL.revokeObjectURL(url)
  }
}

/** Why the server would refuse this file, in the words a person can act on; undefined when it is fine. */
async function photoProblem(file: File): Promise<string | undefined> {
  if (!ACCEPTED_TYPES.includes(file.type))
    return `${file.name} is not a JPEG, PNG or WebP image: choose a photo in one of those formats.`
  if (file.size > MAX_BYTES)
    return `${file.name} is ${(file.size / (1024 * 1024)).toFixed(1)} MiB: choose a photo of at most 4 MiB.`
  const size = await pixelSize(file)
  if (!size) return `${file.name} cannot be read as an image: it may be damaged.`
  if (size.width < MIN_SIDE || size.height < MIN_SIDE)
    return `${file.name} is ${size.width} × ${size.height} pixels: choose a photo of at least ${MIN_SIDE} × ${MIN_SIDE}.`
  if (size.width * size.height > MAX_PIXELS)
    return `${file.name} is ${size.width} × ${size.height} pixels, more than 40 megapixels: choose a smaller one.`
  return undefined
}

/**
 * The photo: pick a file, choose the focus point the square crops keep (click the picture, or use the
 * two sliders), see the square crop, upload.
 */
export function PhotoPanel({ organization, username, name, avatar, writable, save }: Props) {
  const [file, setFile] = useState<File>()
  const [preview, setPreview] = useState('')
  const [focus, setFocus] = useState({ x: 0.5, y: 0.5 })
  const { busy, failure, notice, run, reset } = useAction()
  const [problem, setProblem] = useState('')

  useEffect(() => {
    if (!file) return
    const url = URL.createObjectURL(file)
    setPreview(url)
    return () => URL.revokeObjectURL(url)
  }, [file])

  const choose = async (event: ChangeEvent<HTMLInputElement>) => {
    const chosen = event.target.files?.[0]
    setFile(undefined)
    setPreview('')
    setFocus({ x: 0.5, y: 0.5 })
    reset()
    setProblem('')
    if (!chosen) return
    const found = await photoProblem(chosen)
    if (found) setProblem(found)
    else setFile(chosen)
  }
  const pick = (event: MouseEvent<HTMLImageElement>) => {
    const box = event.currentTarget.getBoundingClientRect()
    setFocus({ x: (event.clientX - box.left) / box.width, y: (event.clientY - box.top) / box.height })
  }
  const upload = async () => {
    if (!file) return
    await run(async () => {
      await save((ifMatch) => uploadAvatar({ organization, username }, file, focus, ifMatch))
      setFile(undefined)
      setPreview('')
      return 'Photo saved.'
    })
  }

  const remove = async () => {
    if (!window.confirm(`Remove the photo of ${name}? Its files are deleted; this cannot be undone.`)) return
    await run(async () => {
      await save((ifMatch) => deleteAvatar({ organization, username }, ifMatch))
      return `The photo of ${name} was removed.`
    })
  }

  return (
    <section className="card photo" aria-labelledby="photo-title">
      <h2 id="photo-title">Photo</h2>
      {avatar.l.url ? (
        <img className="avatar-current" src={avatar.l.url} alt="Current portrait" width={160} height={160} />
      ) : (
        <p className="empty">No photo yet.</p>
      )}
      {writable ? (
        <>
          <div className="field">
            <label htmlFor="photo-file">Choose a photo</label>
            <input
              id="photo-file"
              type="file"
              accept="image/jpeg,image/png,image/webp"
              aria-describedby="photo-rules"
              aria-invalid={problem ? true : undefined}
              onChange={(event) => void choose(event)}
            />
            <p id="photo-rules" className="hint">
              JPEG, PNG or WebP, at least 200 × 200 pixels, at most 4 MiB.
            </p>
            {problem ? (
              <p className="form-error" role="alert">
                {problem}
              </p>
            ) : null}
          </div>
          {file && preview ? (
            <div className="crop">
              <p id="focus-help" className="hint">
                Click the picture where the face is: the square crops keep that point in view.
              </p>
              <div className="crop-row">
                <div className="crop-source">
                  {/* biome-ignore lint/a11y/useKeyWithClickEvents: the sliders below do the same with the keyboard */}
                  <img
                    src={preview}
                    alt="Chosen portrait, at full size"
                    onClick={pick}
                    aria-describedby="focus-help"
                  />
                  <span
                    className="focus-dot"
                    aria-hidden="true"
                    style={{ left: percent(focus.x), top: percent(focus.y) }}
                  />
                </div>
                <img
                  className="crop-preview"
                  src={preview}
                  alt="Square crop preview"
                  width={120}
                  height={120}
                  style={{ objectPosition: `${percent(focus.x)} ${percent(focus.y)}` }}
                />
              </div>
              <label>
                Focus from the left ({percent(focus.x)})
                <input
                  type="range"
                  min={0}
                  max={1}
                  step={0.01}
                  value={focus.x}
                  onChange={(event) => setFocus({ ...focus, x: Number(event.target.value) })}
                />
              </label>
              <label>
                Focus from the top ({percent(focus.y)})
                <input
                  type="range"
                  min={0}
                  max={1}
                  step={0.01}
                  value={focus.y}
                  onChange={(event) => setFocus({ ...focus, y: Number(event.target.value) })}
                />
              </label>
              <div className="actions">
                <button type="button" className="primary" disabled={busy} onClick={() => void upload()}>
                  {busy ? 'Uploading…' : 'Upload photo'}
                </button>
              </div>
            </div>
          ) : null}
          {avatar.l.url && !file ? (
            <div className="actions">
              <button type="button" className="danger" disabled={busy} onClick={() => void remove()}>
                {busy ? 'Removing…' : 'Remove photo'}
              </button>
            </div>
          ) : null}
        </>
      ) : null}
      {notice ? (
        <p className="notice" role="status">
          {notice}
        </p>
      ) : null}
      {failure ? (
        <p className="form-error" role="alert">
          {messageOf(failure)}
        </p>
      ) : null}
    </section>
  )
}
