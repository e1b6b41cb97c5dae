import { useSignedIn } from '../api/session.ts'
import { UnsavedChangesGuard } from '../forms/dirty.tsx'
import { ClientsPanel } from './Clients.tsx'
import { WebhookPanel } from './Webhook.tsx'

/** API clients and the webhook (CONTRACT §15): owners and admins (the router sends anyone else away). */
export function IntegrationsScreen() {
  const me = useSignedIn()
  return (
    <div className="integrations">
      <h1>Integrations</h1>
      <p className="muted">
        How websites and other systems reach the directory: API clients, and the webhook.
      </p>
      <UnsavedChangesGuard>
        <ClientsPanel organization={me.organization} />
        <WebhookPanel organization={me.organization} />
      </UnsavedChangesGuard>
    </div>
  )
}
