import { type Editor, EditorContent, useEditor, useEditorState } from '@tiptap/react'
import { useEffect } from 'react'
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
  {
    label: 'Link',
    active: (e) => e.isActive('link'),
    run: (e) => {
      if (e.isActive('link')) {
        e.chain().focus().unsetLink().run()
        return
      }
      const href = window.prompt('Link address (https://…, mailto:…, tel:…)')
      if (href) e.chain().focus().extendMarkRange('link').setLink({ href }).run()
    },
  },
]

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
    onUpdate: ({ editor: changed }) => onChange(changed.isEmpty ? '' : changed.getHTML()),
  })
  const active = useEditorState({
    editor,
    selector: ({ editor: current }) => TOOLS.map((tool) => (current ? tool.active(current) : false)),
  })
  // A value set from outside (a reload after a conflict) replaces the content. TipTap may have destroyed
  // this editor to make another (its schema is gone then, and reading its HTML throws).
  useEffect(() => {
    if (!editor || editor.isDestroyed) return
    const current = editor.isEmpty ? '' : editor.getHTML()
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
            onClick={() => editor && tool.run(editor)}
          >
            {tool.label}
          </button>
        ))}
      </div>
      <EditorContent editor={editor} />
    </div>
  )
}
