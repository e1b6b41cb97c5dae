import {
  createRootRouteWithContext,
  createRoute,
  createRouter,
  lazyRouteComponent,
  useRouter,
} from '@tanstack/react-router'
import { queries } from './api/queries.ts'
import type { Me } from './api/session.ts'
import {
  BASEPATH,
  leaveSignIn,
  type ReturnSearch,
  type RouterContext,
  refuseUnless,
  requirePasswordChange,
  returnSearchOf,
  type SignInSearch,
  signedInPerson,
  signInSearchOf,
  toStart,
} from './guards.ts'
import { administers, findsExperts, reviews, writesContent } from './roles.ts'
import { ChangePassword } from './screens/ChangePassword.tsx'
import { type ContentSearch, contentSearchOf, PostsScreen, QuestionsScreen } from './screens/ContentList.tsx'
import { ExpertsScreen, type ExpertsSearch, expertsSearchOf } from './screens/Experts.tsx'
import { InboxScreen, type InboxSearch, inboxSearchOf } from './screens/Inbox.tsx'
import { LinkPassword } from './screens/LinkPassword.tsx'
import { OrganizationScreen } from './screens/Organization.tsx'
import { Root } from './screens/Root.tsx'
import { Shell } from './screens/Shell.tsx'
import { SignIn } from './screens/SignIn.tsx'
import { Empty, ErrorNote, Loading } from './ui/parts.tsx'

const root = createRootRouteWithContext<RouterContext>()({ component: Root })

const signIn = createRoute({
  getParentRoute: () => root,
  path: '/sign-in',
  validateSearch: (search: Record<string, unknown>): SignInSearch => signInSearchOf(search),
  beforeLoad: ({ context, search }) => leaveSignIn(context.queries, search),
  component: SignIn,
})

const password = createRoute({
  getParentRoute: () => root,
  path: '/password',
  validateSearch: (search: Record<string, unknown>): ReturnSearch => returnSearchOf(search),
  beforeLoad: ({ context, search }) => requirePasswordChange(context.queries, search),
  component: ChangePassword,
})

/** The pages of emailed links work whoever is signed in, or nobody. */
const invitation = createRoute({
  getParentRoute: () => root,
  path: '/invitation',
  component: () => <LinkPassword purpose="invitation" />,
})
const reset = createRoute({
  getParentRoute: () => root,
  path: '/reset',
  component: () => <LinkPassword purpose="reset" />,
})

/** Every other screen is for a signed-in person, inside the menu's layout. */
const signedIn = createRoute({
  getParentRoute: () => root,
  id: 'signed-in',
  beforeLoad: async ({ context, location }) => ({ me: await signedInPerson(context.queries, location) }),
  pendingComponent: () => <Loading what="your session" />,
  errorComponent: SessionFailure,
  component: Shell,
})

function SessionFailure({ error }: { error: unknown }) {
  const router = useRouter()
  return <ErrorNote error={error} retry={() => void router.invalidate()} />
}

/** For the screens whose menu entry only some people have. */
const only =
  (rule: (me: Me) => boolean) =>
  ({ context }: { context: { me: Me } }) =>
    refuseUnless(rule, context.me)

const home = createRoute({
  getParentRoute: () => signedIn,
  path: '/',
  beforeLoad: ({ context }) => toStart(context.me),
})

const nowhere = createRoute({
  getParentRoute: () => signedIn,
  path: '$',
  component: () => <Empty>There is no such page. Use the menu above.</Empty>,
})

const experts = createRoute({
  getParentRoute: () => signedIn,
  path: '/experts',
  validateSearch: (search: Record<string, unknown>): ExpertsSearch => expertsSearchOf(search),
  component: ExpertsScreen,
})

const findExperts = createRoute({
  getParentRoute: () => signedIn,
  path: '/find',
  beforeLoad: only(findsExperts),
  component: lazyRouteComponent(() => import('./screens/FindExperts.tsx'), 'FindExpertsScreen'),
})

const importPeople = createRoute({
  getParentRoute: () => signedIn,
  path: '/experts/import',
  beforeLoad: only(writesContent),
  component: lazyRouteComponent(() => import('./screens/ImportPeople.tsx'), 'ImportPeopleScreen'),
})

/** The editor (and TipTap with it) loads only when a profile is opened. */
const profile = createRoute({
  getParentRoute: () => signedIn,
  path: '/experts/$username',
  component: lazyRouteComponent(() => import('./screens/Profile.tsx'), 'ProfileScreen'),
})

const publications = createRoute({
  getParentRoute: () => signedIn,
  path: '/experts/$username/publications',
  component: lazyRouteComponent(() => import('./screens/Publications.tsx'), 'PublicationsScreen'),
})

/** The organization's works refreshes; an expert person sees its own queue only. */
const importRuns = createRoute({
  getParentRoute: () => signedIn,
  path: '/publications',
  beforeLoad: only(writesContent),
  component: lazyRouteComponent(() => import('./screens/ImportRuns.tsx'), 'ImportRunsScreen'),
})

const staff = createRoute({
  getParentRoute: () => signedIn,
  path: '/staff',
  beforeLoad: only(writesContent),
  component: lazyRouteComponent(() => import('./screens/Staff.tsx'), 'StaffScreen'),
})

const inbox = createRoute({
  getParentRoute: () => signedIn,
  path: '/inquiries',
  validateSearch: (search: Record<string, unknown>): InboxSearch => inboxSearchOf(search),
  component: InboxScreen,
})

const posts = createRoute({
  getParentRoute: () => signedIn,
  path: '/posts',
  beforeLoad: only(writesContent),
  validateSearch: (search: Record<string, unknown>): ContentSearch => contentSearchOf(search),
  component: PostsScreen,
})
const post = createRoute({
  getParentRoute: () => signedIn,
  path: '/posts/$id',
  beforeLoad: only(writesContent),
  component: lazyRouteComponent(() => import('./screens/ContentEditor.tsx'), 'PostScreen'),
})
const questions = createRoute({
  getParentRoute: () => signedIn,
  path: '/questions',
  beforeLoad: only(writesContent),
  validateSearch: (search: Record<string, unknown>): ContentSearch => contentSearchOf(search),
  component: QuestionsScreen,
})
const question = createRoute({
  getParentRoute: () => signedIn,
  path: '/questions/$id',
  beforeLoad: only(writesContent),
  component: lazyRouteComponent(() => import('./screens/ContentEditor.tsx'), 'QuestionScreen'),
})

const organization = createRoute({
  getParentRoute: () => signedIn,
  path: '/organization',
  beforeLoad: only(writesContent),
  component: OrganizationScreen,
})

/** Settings of owners and admins (scope admin) load only when opened. */
const sso = createRoute({
  getParentRoute: () => signedIn,
  path: '/sso',
  beforeLoad: only(administers),
  component: lazyRouteComponent(() => import('./screens/SsoSettings.tsx'), 'SsoSettingsScreen'),
})

const audit = createRoute({
  getParentRoute: () => signedIn,
  path: '/audit',
  beforeLoad: only(administers),
  component: lazyRouteComponent(() => import('./screens/AuditLog.tsx'), 'AuditLogScreen'),
})

const integrations = createRoute({
  getParentRoute: () => signedIn,
  path: '/integrations',
  beforeLoad: only(administers),
  component: lazyRouteComponent(() => import('./screens/Integrations.tsx'), 'IntegrationsScreen'),
})

const people = createRoute({
  getParentRoute: () => signedIn,
  path: '/people',
  beforeLoad: only(administers),
  component: lazyRouteComponent(() => import('./screens/People.tsx'), 'PeopleScreen'),
})

const notifications = createRoute({
  getParentRoute: () => signedIn,
  path: '/notifications',
  beforeLoad: only(administers),
  component: lazyRouteComponent(() => import('./screens/InquiryRecipients.tsx'), 'InquiryRecipientsScreen'),
})

const workflow = createRoute({
  getParentRoute: () => signedIn,
  path: '/workflow',
  beforeLoad: only(administers),
  component: lazyRouteComponent(() => import('./screens/Workflow.tsx'), 'WorkflowScreen'),
})

/** The review queue and one draft: the reviewing roles' (roles.ts). */
const review = createRoute({
  getParentRoute: () => signedIn,
  path: '/review',
  beforeLoad: only(reviews),
  component: lazyRouteComponent(() => import('./screens/Review.tsx'), 'ReviewQueueScreen'),
})
const reviewDraft = createRoute({
  getParentRoute: () => signedIn,
  path: '/review/$id',
  beforeLoad: only(reviews),
  component: lazyRouteComponent(() => import('./screens/Review.tsx'), 'ReviewDraftScreen'),
})

export const router = createRouter({
  routeTree: root.addChildren([
    signIn,
    password,
    invitation,
    reset,
    signedIn.addChildren([
      home,
      experts,
      findExperts,
      importPeople,
      profile,
      publications,
      importRuns,
      staff,
      inbox,
      posts,
      post,
      questions,
      question,
      organization,
      sso,
      audit,
      integrations,
      people,
      notifications,
      workflow,
      review,
      reviewDraft,
      nowhere,
    ]),
  ]),
  basepath: BASEPATH,
  context: { queries },
})

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router
  }
}
