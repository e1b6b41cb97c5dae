import { useBlocker } from '@tanstack/react-router'
import { createContext, type ReactNode, useContext, useEffect, useId, useRef, useState } from 'react'

type Report = (key: string, dirty: boolean) => void
const DirtyContext = createContext<Report>(() => {})

/** A form tells the nearest tracker whether it holds unsaved changes. */
export function useDirty(dirty: boolean): void {
  const report = useContext(DirtyContext)
  const key = useId()
  useEffect(() => {
    report(key, dirty)
    return () => report(key, false)
  }, [report, key, dirty])
}

/**
 * Warns before unsaved changes are lost: leaving the page (the browser's own prompt) or going to
 * another screen of the app (a confirmation).
 */
export function UnsavedChangesGuard({ children }: { children: ReactNode }) {
  const dirtyForms = useRef(new Set<string>())
  const [count, setCount] = useState(0)
  const report = useRef<Report>((key, dirty) => {
    if (dirty) dirtyForms.current.add(key)
    else dirtyForms.current.delete(key)
    setCount(dirtyForms.current.size)
  }).current

  useBlocker({
    shouldBlockFn: () => !window.confirm('You have unsaved changes. Leave this page and lose them?'),
    enableBeforeUnload: () => dirtyForms.current.size > 0,
    disabled: count === 0,
  })

  return <DirtyContext.Provider value={report}>{children}</DirtyContext.Provider>
}
