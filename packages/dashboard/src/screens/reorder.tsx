import { useEffect, useRef, useState } from 'react'
import { useAction } from '../ui/action.tsx'

type Direction = 'up' | 'down'

/** The order of a list section's elements: moves one step at a time, announced, focus kept. */
export interface Reorder {
  ids: readonly number[]
  busy: boolean
  /** The last move, as a sentence for the live region. */
  announcement: string
  failure: unknown
  move(id: number, name: string, direction: Direction): Promise<void>
  /** Keeps each button's node, to give focus back after the list is drawn in its new order. */
  button(id: number, direction: Direction): (node: HTMLButtonElement | null) => void
}

/**
 * Moves an element one place up or down by sending the section's whole new order (`send`). When the
 * list comes back in that order, the pressed button has focus again (or its twin, at either end of
 * the list), so a keyboard user can press it again.
 */
export function useReorder(ids: readonly number[], send: (order: number[]) => Promise<unknown>): Reorder {
  const buttons = useRef(new Map<string, HTMLButtonElement>())
  const { busy, failure, notice: announcement, run } = useAction()
  const [moved, setMoved] = useState<{ id: number; direction: Direction }>()
  const order = ids.join(',')

  useEffect(() => {
    if (!moved || busy || !order) return
    const pressed = buttons.current.get(`${moved.id}:${moved.direction}`)
    const twin = buttons.current.get(`${moved.id}:${moved.direction === 'up' ? 'down' : 'up'}`)
    ;(pressed?.getAttribute('aria-disabled') === 'true' ? twin : pressed)?.focus()
    setMoved(undefined)
  }, [moved, busy, order])

  return {
    ids,
    busy,
    announcement,
    failure,
    async move(id, name, direction) {
      const from = ids.indexOf(id)
      const to = from + (direction === 'up' ? -1 : 1)
      if (busy || from < 0 || to < 0 || to >= ids.length) return
      const next = ids.filter((other) => other !== id)
      next.splice(to, 0, id)
      await run(async () => {
        // A text answer: the new order was kept for review, and that is what is announced.
        const answer = await send(next)
        setMoved({ id, direction })
        return typeof answer === 'string' ? answer : `${name} moved to position ${to + 1} of ${ids.length}.`
      })
    },
    button: (id, direction) => (node) => {
      const key = `${id}:${direction}`
      if (node) buttons.current.set(key, node)
      else buttons.current.delete(key)
    },
  }
}

/**
 * Move up / Move down for one element. They stay focusable at either end and while a move is sent
 * (`aria-disabled`, not `disabled`): a disabled button would drop the keyboard user's focus.
 */
export function ReorderButtons({ reorder, id, name }: { reorder: Reorder; id: number; name: string }) {
  const index = reorder.ids.indexOf(id)
  const last = reorder.ids.length - 1
  if (last < 1) return null
  const button = (direction: Direction, label: string, arrow: string, atEnd: boolean) => (
    <button
      type="button"
      ref={reorder.button(id, direction)}
      aria-label={`${label}: ${name}`}
      aria-disabled={atEnd || reorder.busy ? true : undefined}
      onClick={() => void reorder.move(id, name, direction)}
    >
      <span aria-hidden="true">{arrow}</span> {label}
    </button>
  )
  return (
    <div className="reorder">
      {button('up', 'Move up', '↑', index === 0)}
      {button('down', 'Move down', '↓', index === last)}
    </div>
  )
}
