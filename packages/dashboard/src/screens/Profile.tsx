import { useQuery, useQueryClient } from '@tanstack/react-query'
import { getRouteApi, Link, useNavigate } from '@tanstack/react-router'
import { useEffect, useRef, useState } from 'react'
import type { components } from '../../../client/src/schema.ts'
import { api } from '../api/client.ts'
import { useKeptForReview } from '../api/drafts.ts'
import { ApiFailure, dataOf, messageOf } from '../api/failure.ts'
import { useSignedIn } from '../api/session.ts'
import { UnsavedChangesGuard } from '../forms/dirty.tsx'
import { ElementForm } from '../forms/ElementForm.tsx'
import { fieldsOf } from '../forms/model.ts'
import { canWrite } from '../roles.ts'
import { EXPERT_SCHEMAS, SECTION_SCHEMAS } from '../schemas.ts'
import { useAction } from '../ui/action.tsx'
import { ErrorNote, Loading, Notice } from '../ui/parts.tsx'
import { DeleteProfile } from './DeleteProfile.tsx'
import { ConceptsPanel, SimilarExpertsPanel } from './MeaningPanels.tsx'
import { OwnDrafts } from './OwnDrafts.tsx'
import { PhotoPanel } from './PhotoPanel.tsx'
import {
  ConflictError,
  type LoadedProfile,
  missingForPublishing,
  profileKey,
  type Save,
  useConditionalSave,
  useProfile,
} from './profile-data.ts'
import { sectionGroups } from './profile-groups.ts'
import { SectionEditor } from './SectionEditor.tsx'
import { expertVersions, VersionHistory } from './VersionHistory.tsx'

const route = getRouteApi('/signed-in/experts/$username')
/** Publishing and privacy have their own panel; the account form holds the rest of the expert's fields. */
const expertFields = fieldsOf(EXPERT_SCHEMAS.update).filter(
  (field) => field.name !== 'is_published' && field.name !== 'is_private' && field.name !== 'username',
)
/** The scholarly identifiers and their policies have a form of their own, beside the works they find. */
const SOURCE_FIELDS: ReadonlySet<string> = new Set([
  'orcid',
  'orcid_policy',
  'openalex_id',
  'openalex_policy',
  'scopus_id',
  'scopus_policy',
])
/** The media desk's fields (availability, how to say and refer to the name): the "Media availability" panel. */
const MEDIA_FIELDS: ReadonlySet<string> = new Set([
  'media_available',
  'media_available_until',
  'interview_languages',
  'remote_ready',
  'studio_ready',
  'time_zone',
  'pronunciation',
  'pronouns',
])
const accountFields = expertFields.filter(
  (field) => !SOURCE_FIELDS.has(field.name) && !MEDIA_FIELDS.has(field.name),
)
const mediaFields = expertFields.filter((field) => MEDIA_FIELDS.has(field.name))
const sourceFields = expertFields.filter((field) => SOURCE_FIELDS.has(field.name))

export function ProfileScreen() {
  const me = useSignedIn()
  const { username } = route.useParams()
  const loaded = useProfile(me.organization, username)
  if (loaded.isPending) return <Loading what="the profile" />
  if (loaded.isError) return <ErrorNote error={loaded.error} retry={() => void loaded.refetch()} />
  return (
    <UnsavedChangesGuard>
      <ProfileEditor loaded={loaded.data} username={username} writable={canWrite(me)} />
    </UnsavedChangesGuard>
  )
}

function ProfileEditor({
  loaded,
  username,
  writable,
}: {
  loaded: LoadedProfile
  username: string
  writable: boolean
}) {
  const me = useSignedIn()
  const queries = useQueryClient()
  const navigate = useNavigate()
  const { profile, etag } = loaded
  const account = profile.account[0]
  const [conflict, setConflict] = useState(false)
  const banner = useRef<HTMLDivElement>(null)
  // The banner is at the top; whoever saved further down is taken to it.
  useEffect(() => {
    if (conflict) banner.current?.focus()
  }, [conflict])
  const conditional = useConditionalSave(me.organization, username, etag)
  /** Every write of this screen: based on the ETag read; a conflict shows the banner. */
  const save: Save = async (write) => {
    try {
      return await conditional(write)
    } catch (error) {
      if (error instanceof ConflictError) setConflict(true)
      throw error
    }
  }
  const reload = async () => {
    setConflict(false)
    await queries.invalidateQueries({ queryKey: profileKey(me.organization, username) })
  }
  const keptForReview = useKeptForReview(me.organization)
  /** Resolves to `KEPT_FOR_REVIEW` when the change was kept as a draft (202) and submitted for review. */
  const updateExpert = async (body: components['schemas']['ExpertUpdate']) =>
    keptForReview(
      await save(async (ifMatch) =>
        // A 202 (the change kept as a draft for review) answers a draft instead of the update.
        dataOf<unknown>(
          await api.PUT('/v2/organization/{corporation}/expert/{username}', {
            params: { path: { corporation: me.organization, username }, header: { 'if-match': ifMatch } },
            body,
          }),
        ),
      ),
    )

  if (!account) return <ErrorNote error={new Error('This profile has no account.')} />
  return (
    <div className="profile">
      <div className="page-head">
        <h1>
          {account.firstname} {account.lastname}
        </h1>
        <div className="badges">
          <span className={account.is_published ? 'badge ok' : 'badge'}>
            {account.is_published ? 'Published' : 'Unpublished'}
          </span>
          {account.is_private ? <span className="badge warn">Private</span> : null}
        </div>
        <PublicPageLink organization={me.organization} username={username} visible={isPublic(account)} />
        <Link to="/experts/$username/publications" params={{ username }}>
          Publications found by the sources
        </Link>
      </div>
      {conflict ? (
        <div className="conflict" role="alert" ref={banner} tabIndex={-1}>
          <p>{new ConflictError().message}</p>
          <button type="button" className="primary" onClick={() => void reload()}>
            Reload the profile
          </button>
        </div>
      ) : null}
      {writable ? null : <p className="notice">You can read this profile; your role cannot change it.</p>}
      {writable ? <OwnDrafts organization={me.organization} username={username} /> : null}
      <div className="profile-top">
        <PublishPanel loaded={loaded} writable={writable} update={updateExpert} />
        <PhotoPanel
          organization={me.organization}
          username={username}
          name={`${account.firstname} ${account.lastname}`}
          avatar={profile.avatar}
          writable={writable}
          save={save}
        />
      </div>
      <div className="profile-meaning">
        <ConceptsPanel username={username} writable={writable} />
        <SimilarExpertsPanel username={username} />
      </div>
      <section className="card" aria-labelledby="account-title">
        <h2 id="account-title">Account</h2>
        <ElementForm
          title="Account"
          fields={accountFields}
          element={account}
          mode="update"
          submitLabel="Save account"
          onSave={(body) => updateExpert(body)}
        />
      </section>
      <section className="card" aria-labelledby="media-title">
        <h2 id="media-title">Media availability</h2>
        <p className="muted">
          Shown to journalists on the public page, in the media kit and the calendar; an availability ends by
          itself at its end.
        </p>
        <ElementForm
          title="Media availability"
          fields={mediaFields}
          element={account}
          mode="update"
          submitLabel="Save media availability"
          onSave={(body) => updateExpert(body)}
        />
      </section>
      <section className="card" aria-labelledby="sources-title">
        <h2 id="sources-title">Publication sources</h2>
        <p className="muted">
          Works found through these identifiers wait in the{' '}
          <Link to="/experts/$username/publications" params={{ username }}>
            publications queue
          </Link>{' '}
          unless a policy decides them.
        </p>
        <ElementForm
          title="Publication sources"
          fields={sourceFields}
          element={account}
          mode="update"
          submitLabel="Save publication sources"
          onSave={(body) => updateExpert(body)}
        />
      </section>
      {SECTION_GROUPS.map((group) => (
        <section key={group.title} className="section-group" aria-label={group.title}>
          <h2>{group.title}</h2>
          {group.sections.map((section) => (
            <SectionEditor
              key={section.name}
              section={section}
              organization={me.organization}
              username={username}
              elements={elementsOf(profile, section.name)}
              save={save}
              open={group.essential}
            />
          ))}
        </section>
      ))}
      <VersionHistory
        source={expertVersions(me.organization, username)}
        revision={etag}
        writable={writable}
        onRestored={() => queries.invalidateQueries({ queryKey: profileKey(me.organization, username) })}
      />
      {writable && me.role !== 'expert' ? (
        <DeleteProfile
          kind="expert"
          organization={me.organization}
          username={username}
          name={`${account.firstname} ${account.lastname}`}
          onDeleted={async () => {
            await queries.invalidateQueries({ queryKey: ['experts', me.organization] })
            await navigate({
              to: '/experts',
              search: { deleted: `${account.firstname} ${account.lastname}` },
            })
            queries.removeQueries({ queryKey: profileKey(me.organization, username) })
          }}
        />
      ) : null}
    </div>
  )
}

const SECTION_GROUPS = sectionGroups(SECTION_SCHEMAS)

const isPublic = (account: { is_published: number; is_private: number }) =>
  account.is_published === 1 && account.is_private === 0

/** The expert's page in the public directory; until it is public, the link says why it would not open. */
function PublicPageLink({
  organization,
  username,
  visible,
}: {
  organization: number
  username: string
  visible: boolean
}) {
  const href = `/directory/${organization}/${encodeURIComponent(username)}`
  return visible ? (
    <a className="public-link" href={href} target="_blank" rel="noopener">
      View public page <span className="visually-hidden">(opens in a new tab)</span>
    </a>
  ) : (
    <span className="public-link muted">Public page: shown once published and public</span>
  )
}

/** A section's elements in a read profile (every stored section is a list there). */
function elementsOf(profile: components['schemas']['Profile'], section: string): Record<string, unknown>[] {
  const value: unknown = Object.entries(profile).find(([name]) => name === section)?.[1]
  return Array.isArray(value) ? value : []
}

function PublishPanel({
  loaded,
  writable,
  update,
}: {
  loaded: LoadedProfile
  writable: boolean
  update: (body: components['schemas']['ExpertUpdate']) => Promise<unknown>
}) {
  const account = loaded.profile.account[0]
  const me = useSignedIn()
  const missing = missingForPublishing(loaded.profile)
  const { busy, failure, notice, run } = useAction()
  if (!account) return null
  const refused = gateRefusal(failure)
  // The update's answer is the notice when the change was kept for review.
  const save = (body: components['schemas']['ExpertUpdate']) => run(() => update(body))
  return (
    <section className="card publish" aria-labelledby="publish-title">
      <h2 id="publish-title">Publishing</h2>
      <p>
        {account.is_published ? 'Published' : 'Not published'}
        {account.is_private ? ', private: only readers with full access see it.' : ', public.'}
      </p>
      {missing.length > 0 ? (
        <div className="checklist">
          <p>A published profile should have:</p>
          <ul aria-label="What this profile lacks">
            {missing.map((item) => (
              <li key={item}>{item}</li>
            ))}
          </ul>
        </div>
      ) : (
        <p className="notice">This profile has a photo, a tagline, a biography and topics.</p>
      )}
      {account.is_published ? null : (
        <GateChecklist organization={me.organization} username={account.username} />
      )}
      {writable ? (
        <div className="actions">
          <button
            type="button"
            className="primary"
            disabled={busy}
            onClick={() => void save({ is_published: account.is_published ? 0 : 1 })}
          >
            {account.is_published ? 'Unpublish' : 'Publish'}
          </button>
          <button
            type="button"
            disabled={busy}
            onClick={() => void save({ is_private: account.is_private ? 0 : 1 })}
          >
            {account.is_private ? 'Make public' : 'Make private'}
          </button>
        </div>
      ) : null}
      {notice ? <Notice>{notice}</Notice> : null}
      {refused.length > 0 ? (
        <div className="form-error" role="alert">
          <p>The organization’s publish gate refused it: this profile</p>
          <ul aria-label="Why it cannot be published">
            {refused.map((reason) => (
              <li key={reason}>{reason}</li>
            ))}
          </ul>
        </div>
      ) : failure ? (
        <p className="form-error" role="alert">
          {messageOf(failure)}
        </p>
      ) : null}
    </section>
  )
}

/** The reasons a 409 of the publish gate names (one per limit the profile fails); none for any other failure. */
function gateRefusal(failure: unknown): string[] {
  if (!(failure instanceof ApiFailure) || failure.status !== 409) return []
  return Object.values(failure.fields)
}

/**
 * The organization's publish gate for this profile (GET .../checklist): each limit it set, met or what
 * is missing. Read again with the profile, after each save.
 */
function GateChecklist({ organization, username }: { organization: number; username: string }) {
  const checklist = useQuery({
    queryKey: [...profileKey(organization, username), 'checklist'],
    queryFn: async () =>
      dataOf(
        await api.GET('/v2/organization/{corporation}/expert/{username}/checklist', {
          params: { path: { corporation: organization, username } },
        }),
      ),
  })
  if (checklist.isPending) return <Loading what="the publish gate" />
  if (checklist.isError) return <ErrorNote error={checklist.error} retry={() => void checklist.refetch()} />
  if (checklist.data.items.length === 0) return null
  return (
    <div className="gate">
      <p>
        {checklist.data.ready
          ? 'It meets the organization’s publish gate:'
          : 'The organization’s publish gate needs more before it can be published:'}
      </p>
      <ul aria-label="Publish gate" className="gate-items">
        {checklist.data.items.map((item) => (
          <li key={item.check} className={item.ok ? 'gate-item ok' : 'gate-item missing'}>
            <span className={item.ok ? 'badge ok' : 'badge warn'}>{item.ok ? 'Met' : 'Missing'}</span> It{' '}
            {item.message}
          </li>
        ))}
      </ul>
    </div>
  )
}
