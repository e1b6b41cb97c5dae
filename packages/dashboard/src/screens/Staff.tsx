import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { api } from '../api/client.ts'
import { dataOf } from '../api/failure.ts'
import { useSignedIn } from '../api/session.ts'
import { canWrite } from '../roles.ts'
import { Empty, ErrorNote, Loading } from '../ui/parts.tsx'
import { DeleteProfile } from './DeleteProfile.tsx'

const PAGE_SIZE = 100

/**
 * The organization's staff members (`GET .../staff`: the contacts pages list beside the experts), each
 * with its delete. Staff profiles are written through the API and imports.
 */
export function StaffScreen() {
  const me = useSignedIn()
  const queries = useQueryClient()
  const key = ['staff', me.organization]
  const [notice, setNotice] = useState('')
  const list = useQuery({
    queryKey: key,
    queryFn: async () =>
      dataOf(
        await api.GET('/v2/organization/{corporation}/staff', {
          params: {
            path: { corporation: me.organization },
            query: { access: 'all', status: 'all', page_size: PAGE_SIZE },
          },
        }),
      ),
  })
  return (
    <div className="staff">
      <h1>Staff</h1>
      <p className="muted">
        Staff members are the organization’s contacts (media relations, communications): listed with the
        experts, without the expert sections.
      </p>
      {notice ? (
        <p className="notice" role="status">
          {notice}
        </p>
      ) : null}
      {list.isPending ? <Loading what="the staff" /> : null}
      {list.isError ? <ErrorNote error={list.error} retry={() => void list.refetch()} /> : null}
      {list.data && list.data.staff.length === 0 ? (
        <Empty>The organization has no staff members.</Empty>
      ) : null}
      {list.data && list.data.staff.length > 0 ? (
        <ul className="expert-list" aria-label="Staff members">
          {list.data.staff.map((member) => (
            <li key={member.username} className="expert-row">
              <span className="avatar-blank" />
              <div>
                <strong>{member.fullname}</strong>
                <p className="muted">{[member.job_title, member.department].filter(Boolean).join(', ')}</p>
              </div>
              {canWrite(me) ? (
                <DeleteProfile
                  compact
                  kind="staff"
                  organization={me.organization}
                  username={member.username}
                  name={member.fullname}
                  onDeleted={async () => {
                    setNotice(`${member.fullname} was deleted.`)
                    await queries.invalidateQueries({ queryKey: key })
                  }}
                />
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
      {list.data && list.data.total > list.data.staff.length ? (
        <p className="muted">
          The first {list.data.staff.length} of {list.data.total} staff members.
        </p>
      ) : null}
    </div>
  )
}
