import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query'
import { useMemo, useState } from 'react'
import type { components } from '../../../client/src/schema.ts'
import { api } from '../api/client.ts'
import { dataOf, messageOf } from '../api/failure.ts'
import { ElementForm } from '../forms/ElementForm.tsx'
import { fieldsOf } from '../forms/model.ts'
import { WEBHOOK_SCHEMA } from '../schemas.ts'
import { Empty, ErrorNote, Loading, Notice, Time } from '../ui/parts.tsx'
import { SecretOnce } from '../ui/SecretOnce.tsx'

type Webhook = components['schemas']['Webhook']
type Delivery = components['schemas']['WebhookDelivery']
type TestResult = components['schemas']['WebhookTestResult']

/** The generated fields of `WebhookSet`, with short labels; keeping the secret applies to a webhook that exists. */
const LABELS: Readonly<Record<string, { label: string; hint: string }>> = {
  url: {
    label: 'Webhook URL',
    hint: 'Each inquiry is POSTed there as JSON, signed with the secret (http or https)',
  },
  keep_secret: {
    label: 'Keep the signing secret',
    hint: 'Change only the URL; otherwise a new secret is made, shown once, and the old one stops signing',
  },
}
const allFields = fieldsOf(WEBHOOK_SCHEMA).map((field) => ({ ...field, ...LABELS[field.name] }))
const urlOnly = allFields.filter((field) => field.name !== 'keep_secret')

const STATUS_BADGES: Readonly<Record<Delivery['status'], string>> = {
  delivered: 'badge ok',
  pending: 'badge',
  failed: 'badge warn',
  skipped: 'badge',
}

/** The organization's webhook (`GET|PUT|DELETE .../webhook`, its test event and its delivery log; scope admin). */
export function WebhookPanel({ organization }: { organization: number }) {
  const queries = useQueryClient()
  const key = ['webhook', organization]
  const path = { corporation: organization }
  const webhook = useQuery({
    queryKey: key,
    queryFn: async () =>
      dataOf(await api.GET('/v2/organization/{corporation}/webhook', { params: { path } })),
  })
  // As a client's secret: held by this panel only, never in the query cache.
  const [secret, setSecret] = useState<string>()
  const [notice, setNotice] = useState('')
  const [failure, setFailure] = useState<unknown>()
  const [test, setTest] = useState<TestResult>()
  const [testing, setTesting] = useState(false)
  // The form takes the stored URL as its starting point; a new object each render would reset it.
  const stored = webhook.data?.url ?? null
  const element = useMemo(() => ({ url: stored }), [stored])

  const save = async (body: Record<string, unknown>) => {
    const saved = dataOf(
      await api.PUT('/v2/organization/{corporation}/webhook', {
        params: { path },
        // Checked by the server against the schema the form was generated from.
        body: body as components['schemas']['WebhookSet'],
      }),
    )
    setSecret(saved.secret)
    setTest(undefined)
    setNotice(saved.secret ? '' : 'The URL is changed; the signing secret is the same.')
    await queries.invalidateQueries({ queryKey: key })
  }
  const remove = async (current: Webhook) => {
    if (!window.confirm(`Remove the webhook? Inquiries are no longer sent to ${current.url}.`)) return
    setFailure(undefined)
    try {
      dataOf(await api.DELETE('/v2/organization/{corporation}/webhook', { params: { path } }))
      setSecret(undefined)
      setTest(undefined)
      setNotice('The webhook is removed.')
      await queries.invalidateQueries({ queryKey: key })
    } catch (error) {
      setFailure(error)
    }
  }
  const sendTest = async () => {
    setTesting(true)
    setFailure(undefined)
    setTest(undefined)
    try {
      setTest(dataOf(await api.POST('/v2/organization/{corporation}/webhook/test', { params: { path } })))
    } catch (error) {
      setFailure(error)
    } finally {
      setTesting(false)
    }
  }

  const current = webhook.data
  return (
    <section className="card" aria-labelledby="webhook-title">
      <h2 id="webhook-title">Webhook</h2>
      <p className="muted">
        Each inquiry is also POSTed to this URL, signed with <code>X-Expertdir-Signature</code> so that the
        receiver can check it came from here.
      </p>
      {webhook.isPending ? <Loading what="the webhook" /> : null}
      {webhook.isError ? <ErrorNote error={webhook.error} retry={() => void webhook.refetch()} /> : null}
      {current ? (
        <>
          <dl className="facts">
            <dt>Status</dt>
            <dd>
              {current.configured ? (
                <span className="badge ok">Configured</span>
              ) : (
                <span className="badge">Not configured</span>
              )}
            </dd>
            {current.url ? (
              <>
                <dt>URL</dt>
                <dd>
                  <code>{current.url}</code>
                </dd>
              </>
            ) : null}
            {current.updated_at ? (
              <>
                <dt>Last changed</dt>
                <dd>
                  <Time seconds={current.updated_at} />
                </dd>
              </>
            ) : null}
          </dl>
          {current.configured ? (
            <div className="actions">
              <button type="button" disabled={testing} onClick={() => void sendTest()}>
                {testing ? 'Sending…' : 'Send a test delivery'}
              </button>
              <button type="button" className="danger" onClick={() => void remove(current)}>
                Remove the webhook
              </button>
            </div>
          ) : (
            <Empty>No webhook is set: inquiries reach the organization by email only.</Empty>
          )}
          {test ? <TestOutcome result={test} /> : null}
          {failure ? (
            <p className="form-error" role="alert">
              {messageOf(failure)}
            </p>
          ) : null}
          {notice ? <Notice>{notice}</Notice> : null}
          {secret ? (
            <SecretOnce
              title="The new signing secret"
              label="Signing secret"
              secret={secret}
              onClose={() => setSecret(undefined)}
            >
              <p>
                The receiver checks each request’s <code>X-Expertdir-Signature</code> with it: HMAC-SHA256
                over the timestamp, a dot and the raw body.
              </p>
            </SecretOnce>
          ) : null}
          <h3 className="subheading">{current.configured ? 'Change the URL' : 'Set the webhook'}</h3>
          <ElementForm
            title={current.configured ? 'Change the webhook' : 'Set the webhook'}
            fields={current.configured ? allFields : urlOnly}
            element={element}
            mode="create"
            submitLabel={current.configured ? 'Save the webhook' : 'Set the webhook'}
            onSave={save}
          />
        </>
      ) : null}
      <DeliveryLog organization={organization} />
    </section>
  )
}

function TestOutcome({ result }: { result: TestResult }) {
  if (result.delivered)
    return (
      <p className="notice" role="status">
        Test delivery: delivered (the receiver answered with a 2xx status).
      </p>
    )
  return (
    <p className="form-error" role="alert">
      Test delivery: not delivered. {result.error}
    </p>
  )
}

/** The webhook channel's deliveries (`GET .../webhook/deliveries`): newest first, a page at a time. */
function DeliveryLog({ organization }: { organization: number }) {
  const log = useInfiniteQuery({
    queryKey: ['webhook-deliveries', organization],
    initialPageParam: '',
    queryFn: async ({ pageParam }) =>
      dataOf(
        await api.GET('/v2/organization/{corporation}/webhook/deliveries', {
          params: {
            path: { corporation: organization },
            query: { page_size: 20, ...(pageParam ? { cursor: pageParam } : {}) },
          },
        }),
      ),
    getNextPageParam: (page) => page.next_cursor ?? undefined,
  })
  const deliveries = log.data?.pages.flatMap((page) => page.deliveries) ?? []
  return (
    <div className="delivery-log">
      <div className="page-head">
        <h3 className="subheading">Delivery log</h3>
        <button type="button" disabled={log.isFetching} onClick={() => void log.refetch()}>
          Refresh the log
        </button>
      </div>
      <p className="muted">
        Each inquiry sent to the webhook, newest first. Test deliveries are not kept here: their outcome shows
        above.
      </p>
      {log.isPending ? <Loading what="the delivery log" /> : null}
      {log.isError ? <ErrorNote error={log.error} retry={() => void log.refetch()} /> : null}
      {log.data && deliveries.length === 0 ? (
        <Empty>No inquiry has been sent to the webhook yet.</Empty>
      ) : null}
      {deliveries.length > 0 ? (
        <div className="table-scroll">
          <table className="data-table">
            <caption className="visually-hidden">Webhook deliveries, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Inquiry</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Arrived</th>
                <th scope="col">Delivered or next attempt</th>
                <th scope="col">Error</th>
              </tr>
            </thead>
            <tbody>
              {deliveries.map((delivery) => (
                <tr key={delivery.id}>
                  <td>{delivery.inquiry_id}</td>
                  <td>
                    <span className={STATUS_BADGES[delivery.status]}>{delivery.status}</span>
                  </td>
                  <td>{delivery.attempts}</td>
                  <td>
                    <Time seconds={delivery.created_at} />
                  </td>
                  <td>
                    {delivery.delivered_at ? <Time seconds={delivery.delivered_at} /> : null}
                    {!delivery.delivered_at && delivery.next_attempt_at ? (
                      <>
                        next: <Time seconds={delivery.next_attempt_at} />
                      </>
                    ) : null}
                  </td>
                  <td className="delivery-error">{delivery.last_error}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {log.hasNextPage ? (
        <button type="button" disabled={log.isFetchingNextPage} onClick={() => void log.fetchNextPage()}>
          {log.isFetchingNextPage ? 'Loading…' : 'Load more'}
        </button>
      ) : null}
    </div>
  )
}
