import { createRootRoute, createRoute, createRouter, lazyRouteComponent } from '@tanstack/react-router'
import { type ContentSearch, contentSearchOf, PostsScreen, QuestionsScreen } from './screens/ContentList.tsx'
import { ExpertsScreen, type ExpertsSearch, expertsSearchOf } from './screens/Experts.tsx'
import { InboxScreen, type InboxSearch, inboxSearchOf } from './screens/Inbox.tsx'
import { OrganizationScreen } from './screens/Organization.tsx'
import { Shell } from './screens/Shell.tsx'
import { Empty } from './ui/parts.tsx'

const root = createRootRoute({
  component: Shell,
  notFoundComponent: () => <Empty>There is no such page. Use the menu above.</Empty>,
})

const home = createRoute({ getParentRoute: () => root, path: '/', component: () => null })

const experts = createRoute({
  getParentRoute: () => root,
  path: '/experts',
  validateSearch: (search: Record<string, unknown>): ExpertsSearch => expertsSearchOf(search),
  component: ExpertsScreen,
})

/** The editor (and TipTap with it) loads only when a profile is opened. */
const importPeople = createRoute({
  getParentRoute: () => root,
  path: '/experts/import',
  component: lazyRouteComponent(() => import('./screens/ImportPeople.tsx'), 'ImportPeopleScreen'),
})

const profile = createRoute({
  getParentRoute: () => root,
  path: '/experts/$username',
  component: lazyRouteComponent(() => import('./screens/Profile.tsx'), 'ProfileScreen'),
})

const staff = createRoute({
  getParentRoute: () => root,
  path: '/staff',
  component: lazyRouteComponent(() => import('./screens/Staff.tsx'), 'StaffScreen'),
})

const inbox = createRoute({
  getParentRoute: () => root,
  path: '/inquiries',
  validateSearch: (search: Record<string, unknown>): InboxSearch => inboxSearchOf(search),
  component: InboxScreen,
})

const posts = createRoute({
  getParentRoute: () => root,
  path: '/posts',
  validateSearch: (search: Record<string, unknown>): ContentSearch => contentSearchOf(search),
  component: PostsScreen,
})
const post = createRoute({
  getParentRoute: () => root,
  path: '/posts/$id',
  component: lazyRouteComponent(() => import('./screens/ContentEditor.tsx'), 'PostScreen'),
})
const questions = createRoute({
  getParentRoute: () => root,
  path: '/questions',
  validateSearch: (search: Record<string, unknown>): ContentSearch => contentSearchOf(search),
  component: QuestionsScreen,
})
const question = createRoute({
  getParentRoute: () => root,
  path: '/questions/$id',
  component: lazyRouteComponent(() => import('./screens/ContentEditor.tsx'), 'QuestionScreen'),
})

const organization = createRoute({
  getParentRoute: () => root,
  path: '/organization',
  component: OrganizationScreen,
})

/** Settings of owners and admins (scope admin) load only when opened. */
const sso = createRoute({
  getParentRoute: () => root,
  path: '/sso',
  component: lazyRouteComponent(() => import('./screens/SsoSettings.tsx'), 'SsoSettingsScreen'),
})

const audit = createRoute({
  getParentRoute: () => root,
  path: '/audit',
  component: lazyRouteComponent(() => import('./screens/AuditLog.tsx'), 'AuditLogScreen'),
})

const integrations = createRoute({
  getParentRoute: () => root,
  path: '/integrations',
  component: lazyRouteComponent(() => import('./screens/Integrations.tsx'), 'IntegrationsScreen'),
})

const people = createRoute({
  getParentRoute: () => root,
  path: '/people',
  component: lazyRouteComponent(() => import('./screens/People.tsx'), 'PeopleScreen'),
})

const notifications = createRoute({
  getParentRoute: () => root,
  path: '/notifications',
  component: lazyRouteComponent(() => import('./screens/InquiryRecipients.tsx'), 'InquiryRecipientsScreen'),
})

export const router = createRouter({
  routeTree: root.addChildren([
    home,
    experts,
    importPeople,
    profile,
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
  ]),
  basepath: '/admin',
})

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router
  }
}
