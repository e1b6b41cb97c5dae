import { Outlet } from '@tanstack/react-router'
import { useEffect } from 'react'
import { whenSessionLost } from '../api/client.ts'
import { useSessionActions } from '../api/session.ts'

/** Every page: when `/v2` refuses the session's token, the session is read again and the guards follow. */
export function Root() {
  const { recheck } = useSessionActions()
  useEffect(() => whenSessionLost(() => void recheck()), [recheck])
  return <Outlet />
}
