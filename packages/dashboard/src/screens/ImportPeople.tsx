import { useQueryClient } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { useState } from 'react'
import type { components } from '../../../client/src/schema.ts'
import { api } from '../api/client.ts'
import { dataOf } from '../api/failure.ts'
import { useSignedIn } from '../api/session.ts'
import { writesContent } from '../roles.ts'
import { FailureNote, useAction } from '../ui/action.tsx'

type Checked = components['schemas']['CsvImportResult']

/** Problems listed on the screen; the count says how many more there are. */
const LISTED_PROBLEMS = 200

/**
 * People in bulk (`POST .../experts/import`): an HR export as CSV, its columns mapped to fields (matched
 * by header, editable), a preview of the first rows and every problem by row and column, checked by a
 * dry run before anything is written; then the import, all or nothing.
 */
export function ImportPeopleScreen() {
  const me = useSignedIn()
  const queries = useQueryClient()
  const path = { corporation: me.organization }
  const [file, setFile] = useState<{ name: string; text: string }>()
  const [mapping, setMapping] = useState<Record<string, string>>({})
  const [checked, setChecked] = useState<Checked>()
  const check = useAction()
  const write = useAction()

  const runCheck = (text: string, columns: Record<string, string>) =>
    check.run(async () => {
      write.reset()
      setChecked(
        dataOf(
          await api.POST('/v2/organization/{corporation}/experts/import', {
            params: { path },
            body: { csv: text, mapping: columns, dry_run: true },
          }),
        ),
      )
    })

  const choose = async (chosen: File | undefined) => {
    setChecked(undefined)
    if (!chosen) return setFile(undefined)
    const text = await chosen.text()
    setFile({ name: chosen.name, text })
    setMapping({})
    await runCheck(text, {})
  }

  const mapColumn = (column: string, field: string) => {
    const next = { ...mapping, [column]: field }
    setMapping(next)
    if (file) void runCheck(file.text, next)
  }

  const runImport = () =>
    write.run(async () => {
      if (!file) return ''
      const done = dataOf(
        await api.POST('/v2/organization/{corporation}/experts/import', {
          params: { path },
          body: { csv: file.text, mapping },
        }),
      )
      await queries.invalidateQueries({ queryKey: ['experts'] })
      const counts = done.experts
      setChecked(undefined)
      return counts
        ? `Imported: ${counts.created} created, ${counts.updated} updated, ${counts.unchanged} unchanged.`
        : ''
    })

  const downloadTemplate = () =>
    check.run(async () => {
      const { data, error, response } = await api.GET(
        '/v2/organization/{corporation}/experts/import/template',
        {
          params: { path },
          parseAs: 'text',
        },
      )
      if (data === undefined) return dataOf({ error, response })
      const link = document.createElement('a')
      link.href = URL.createObjectURL(new Blob([data], { type: 'text/csv' }))
      link.download = 'experts-template.csv'
      link.click()
      URL.revokeObjectURL(link.href)
    })

  if (!writesContent(me)) return <p role="status">Importing people needs the editor role or above.</p>
  const problems = checked?.problems ?? []
  const ready = checked !== undefined && problems.length === 0 && !check.busy
  return (
    <div className="import-people">
      <div className="page-head">
        <h1>Import people</h1>
        <Link to="/experts">Back to the experts</Link>
      </div>
      <section className="card" aria-labelledby="import-file-title">
        <h2 id="import-file-title">CSV file</h2>
        <p className="muted">
          One expert per row, with a header row. Each row needs a key (your staff or HR id: a later import of
          the same key updates that expert), first name, last name, job title, email and company. Nothing is
          written unless every row is right.
        </p>
        <div className="actions">
          <label className="file-pick">
            <span>Choose a CSV file</span>
            <input
              type="file"
              accept=".csv,text/csv"
              onChange={(event) => {
                const input = event.currentTarget
                void choose(input.files?.[0]).finally(() => {
                  // Choosing the same file again (a re-import) must fire the change again.
                  input.value = ''
                })
              }}
            />
          </label>
          <button type="button" className="secondary" onClick={() => void downloadTemplate()}>
            Download the template
          </button>
        </div>
        {file ? (
          <p className="muted">
            {file.name}
            {checked ? `: ${checked.rows} rows` : ''}
          </p>
        ) : null}
        {check.busy ? <p role="status">Checking the file...</p> : null}
        <FailureNote failure={check.failure} />
      </section>

      {checked ? (
        <>
          <section className="card" aria-labelledby="import-columns-title">
            <h2 id="import-columns-title">Columns</h2>
            <div className="table-scroll">
              <table className="data-table import-preview">
                <thead>
                  <tr>
                    <th scope="col">Row</th>
                    {checked.columns.map(({ column, field }) => (
                      <th scope="col" key={column}>
                        <span className="column-name">{column}</span>
                        <select
                          aria-label={`Field of the column ${column}`}
                          value={field ?? ''}
                          onChange={(event) => mapColumn(column, event.currentTarget.value)}
                        >
                          <option value="">(not imported)</option>
                          {checked.fields.map((option) => (
                            <option key={option.field} value={option.field}>
                              {option.field}
                              {option.required ? ' *' : ''}
                            </option>
                          ))}
                        </select>
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {checked.preview.map((row) => (
                    <tr key={row.row}>
                      <th scope="row">{row.row}</th>
                      {checked.columns.map(({ column }, index) => (
                        <td key={column}>{row.cells[index] ?? ''}</td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </section>

          <section className="card" aria-labelledby="import-check-title">
            <h2 id="import-check-title">Check</h2>
            {problems.length > 0 ? (
              <>
                <p className="form-error" role="alert">
                  {problems.length} problem{problems.length === 1 ? '' : 's'}: nothing will be imported until
                  the file is fixed.
                </p>
                <ul className="import-problems">
                  {problems.slice(0, LISTED_PROBLEMS).map((problem) => (
                    <li key={`${problem.row}-${problem.column}-${problem.field}-${problem.message}`}>
                      {problem.row === null ? 'File' : `Row ${problem.row}`}
                      {problem.column ? `, column ${problem.column}` : ''}: {problem.field} {problem.message}
                    </li>
                  ))}
                </ul>
                {problems.length > LISTED_PROBLEMS ? (
                  <p className="muted">... and {problems.length - LISTED_PROBLEMS} more.</p>
                ) : null}
              </>
            ) : checked.experts ? (
              <p role="status">
                Ready: {checked.experts.created} to create, {checked.experts.updated} to update,{' '}
                {checked.experts.unchanged} unchanged.
              </p>
            ) : null}
            <div className="actions">
              <button type="button" disabled={!ready || write.busy} onClick={() => void runImport()}>
                {write.busy ? 'Importing...' : `Import ${checked.rows} people`}
              </button>
            </div>
          </section>
        </>
      ) : null}
      {write.notice ? (
        <p className="notice" role="status">
          {write.notice}
        </p>
      ) : null}
      <FailureNote failure={write.failure} />
    </div>
  )
}
