import { type Editor, EditorContent, useEditor, useEditorState } from '@tiptap/react'
import { useEffect, useId, useRef, useState } from 'react'
import { RICH_TEXT_EXTENSIONS } from './rich-text-extensions.ts'

interface Props {
  id: string
  labelId: string
  describedBy: string | undefined
  value: string
  onChange: (html: string) => void
}

interface Tool {
  label: string
  active: (editor: Editor) => boolean
  run: (editor: Editor) => void
}

const TOOLS: Tool[] = [
  { label: 'Bold', active: (e) => e.isActive('bold'), run: (e) => e.chain().focus().toggleBold().run() },
  {
    label: 'Italic',
    active: (e) => e.isActive('italic'),
    run: (e) => e.chain().focus().toggleItalic().run(),
  },
  {
    label: 'Underline',
    active: (e) => e.isActive('underline'),
    run: (e) => e.chain().focus().toggleUnderline().run(),
  },
  {
    label: 'Heading',
    active: (e) => e.isActive('heading', { level: 2 }),
    run: (e) => e.chain().focus().toggleHeading({ level: 2 }).run(),
  },
  {
    label: 'Bulleted list',
    active: (e) => e.isActive('bulletList'),
    run: (e) => e.chain().focus().toggleBulletList().run(),
  },
  {
    label: 'Numbered list',
    active: (e) => e.isActive('orderedList'),
    run: (e) => e.chain().focus().toggleOrderedList().run(),
  },
  {
    label: 'Quote',
    active: (e) => e.isActive('blockquote'),
    run: (e) => e.chain().focus().toggleBlockquote().run(),
  },
]

/** Link addresses the server keeps (the sanitizer drops any other scheme). */
const LINK = /^(https?:\/\/\S+|mailto:\S+@\S+|tel:[+\d][\d\s().-]*)$/i

/**
 * The editor's HTML as stored: TipTap keeps an empty paragraph where the cursor was left after the
 * last block, which would show as blank space under the text on every page.
 */
export function storedHtml(html: string): string {
  return html.replace(/(?:<p><\/p>)+$/, '')
}

/** An HTML field's editor: TipTap limited to the markup the server keeps (rich-text-extensions.ts). */
export default function RichText({ id, labelId, describedBy, value, onChange }: Props) {
  const editor = useEditor({
    extensions: RICH_TEXT_EXTENSIONS,
    // TipTap would add a <style> element, which the dashboard's CSP refuses: its rules are in styles.css.
    injectCSS: false,
    content: value,
    editorProps: {
      attributes: {
        id,
        role: 'textbox',
        'aria-multiline': 'true',
        'aria-labelledby': labelId,
        ...(describedBy ? { 'aria-describedby': describedBy } : {}),
        class: 'rich-text-area',
      },
    },
    onUpdate: ({ editor: changed }) => onChange(changed.isEmpty ? '' : storedHtml(changed.getHTML())),
  })
  const active = useEditorState({
    editor,
    selector: ({ editor: current }) => TOOLS.map((tool) => (current ? tool.active(current) : false)),
  })
  const linked = useEditorState({
    editor,
    selector: ({ editor: current }) => current?.isActive('link') ?? false,
  })
  // A value set from outside (a reload after a conflict) replaces the content. TipTap may have destroyed
  // this editor to make another (its schema is gone then, and reading its HTML throws).
  useEffect(() => {
    if (!editor || editor.isDestroyed) return
    const current = editor.isEmpty ? '' : storedHtml(editor.getHTML())
    if (current !== value) editor.commands.setContent(value, { emitUpdate: false })
  }, [editor, value])

  return (
    <div className="rich-text">
      <div role="toolbar" aria-label="Formatting" className="toolbar">
        {TOOLS.map((tool, index) => (
          <button
            key={tool.label}
            type="button"
            aria-pressed={active?.[index] ?? false}
            // A pointer press leaves the focus (and the selection) in the editor, so typing goes on where it was.
            onMouseDown={(event) => event.preventDefault()}
            onClick={() => editor && tool.run(editor)}
          >
            {tool.label}
          </button>
        ))}
        <LinkTool editor={editor} linked={linked ?? false} />
      </div>
      <EditorContent editor={editor} />
    </div>
  )
}

/** The Link button: removes the link under the cursor, or asks for an address in a small dialog. */
function LinkTool({ editor, linked }: { editor: Editor | null; linked: boolean }) {
  const dialog = useRef<HTMLDialogElement>(null)
  const inputId = useId()
  const errorId = useId()
  const [href, setHref] = useState('')
  const [invalid, setInvalid] = useState(false)
  const open = () => {
    if (!editor) return
    if (linked) {
      editor.chain().focus().unsetLink().run()
      return
    }
    setHref('')
    setInvalid(false)
    dialog.current?.showModal()
  }
  const add = () => {
    const address = href.trim()
    if (!LINK.test(address)) {
      setInvalid(true)
      return
    }
    dialog.current?.close()
    editor?.chain().focus().extendMarkRange('link').setLink({ href: address }).run()
  }
  return (
    <>
      <button type="button" aria-pressed={linked} onClick={open}>
        Link
      </button>
      <dialog ref={dialog} className="link-dialog" aria-labelledby={`${inputId}-title`}>
        {/* Not a form: this editor stands inside the field's form, and forms do not nest. */}
        <div className="link-dialog-body">
          <h2 id={`${inputId}-title`}>Add a link</h2>
          <label htmlFor={inputId}>Link address</label>
          <input
            id={inputId}
            type="text"
            inputMode="url"
            value={href}
            placeholder="https://…, mailto:…, tel:…"
            aria-invalid={invalid || undefined}
            aria-describedby={invalid ? errorId : undefined}
            onChange={(event) => setHref(event.target.value)}
            onKeyDown={(event) => {
              if (event.key !== 'Enter') return
              event.preventDefault()
              add()
            }}
          />
          {invalid ? (
            <p id={errorId} className="form-error" role="alert">
              Enter a web address (https://…), an email (mailto:…) or a phone number (tel:…).
            </p>
          ) : null}
          <div className="actions">
            <button type="button" className="primary" onClick={add}>
              Add link
            </button>
            <button type="button" onClick={() => dialog.current?.close()}>
              Cancel
            </button>
          </div>
        </div>
      </dialog>
    </>
  )
}
