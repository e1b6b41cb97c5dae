import { type ChangeEvent, type MouseEvent, useEffect, useState } from 'react'
import type { components } from '../../../client/src/schema.ts'
import { messageOf } from '../api/failure.ts'
import { uploadAvatar } from '../api/profile-writes.ts'
import type { Save } from './profile-data.ts'

interface Props {
  organization: number
  username: string
  avatar: components['schemas']['Avatar']
  writable: boolean
  save: Save
}

const percent = (value: number) => `${Math.round(value * 100)}%`

/**
 * The photo: pick a file, choose the focus point the square crops keep (click the picture, or use the
 * two sliders), see the square crop, upload.
 */
export function PhotoPanel({ organization, username, avatar, writable, save }: Props) {
  const [file, setFile] = useState<File>()
  const [preview, setPreview] = useState('')
  const [focus, setFocus] = useState({ x: 0.5, y: 0.5 })
  const [failure, setFailure] = useState<unknown>()
  const [busy, setBusy] = useState(false)
  const [notice, setNotice] = useState('')

  useEffect(() => {
    if (!file) return
    const url = URL.createObjectURL(file)
    setPreview(url)
    return () => URL.revokeObjectURL(url)
  }, [file])

  const choose = (event: ChangeEvent<HTMLInputElement>) => {
    setFile(event.target.files?.[0])
    setFocus({ x: 0.5, y: 0.5 })
    setNotice('')
    setFailure(undefined)
  }
  const pick = (event: MouseEvent<HTMLImageElement>) => {
    const box = event.currentTarget.getBoundingClientRect()
    setFocus({ x: (event.clientX - box.left) / box.width, y: (event.clientY - box.top) / box.height })
  }
  const upload = async () => {
    if (!file) return
    setBusy(true)
    setFailure(undefined)
    try {
      await save((ifMatch) => uploadAvatar({ organization, username }, file, focus, ifMatch))
      setFile(undefined)
      setPreview('')
      setNotice('Photo saved.')
    } catch (error) {
      setFailure(error)
    } finally {
      setBusy(false)
    }
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
            <input id="photo-file" type="file" accept="image/jpeg,image/png,image/webp" onChange={choose} />
            <p className="hint">JPEG, PNG or WebP, at least 200 × 200 pixels, at most 4 MiB.</p>
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
