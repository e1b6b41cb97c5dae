/**
 * Import rules of src/ (`npm run lint`): no circular imports; the shared layers (http, db, validation,
 * storage: where media files live; limits: the counter store under every lock-out and limit)
 * import no feature folder; a feature folder imports only folders of a lower layer, so no two folders
 * ever import each other; a folder's route files sit above all that (see routeFiles below), and so do the
 * front files of src/kept-reads (see KEPT_READ_FRONT). A new folder goes into the layer list below. Files at the root of src/ are
 * either composition roots (COMPOSITION: they assemble the features, and only cli/ above them may
 * import them) or foundations every folder may import (config.ts and any new root file), which import
 * no feature folder.
 */
const SHARED = ['http', 'db', 'validation', 'storage', 'limits']
/**
 * Lowest first. A folder may import the shared layers and the folders of the layers before its own.
 * derived/ (read documents, the search index, the change hub every write and delete goes through) is
 * the lowest: every feature calls it, it imports no feature, so no write climbs up.
 */
const LAYERS = [
  // The audit log: every write records its entry through it, so it imports no feature.
  ['audit'],
  // Versions of profiles, posts and Q&A items (history), and the organization's workflow settings with
  // the publish gate (workflow): the write services of the features record and check through them.
  ['derived', 'history', 'workflow'],
  // Kept reads: answers kept in the process under the versions that validate them (its front files: below).
  ['kept-reads'],
  ['auth', 'experts', 'organizations'],
  ['content', 'inquiries', 'search', 'people'],
  // The publishing schedule carries out scheduled times through the experts' and content's own writes.
  ['profiles', 'delivery', 'sessions', 'schedules'],
  // Photos and documents: the uploads write profile items; the import stores local photos through it.
  // Single sign-on: signs people in through the sessions' own way and creates them through people/.
  // The editorial workflow's own services over the features' writes: restoring a version.
  ['media', 'sso', 'editorial'],
  ['import', 'system', 'staff', 'dashboard'],
  // Publications: the works importer merges what the scholarly sources find (their connectors reach out
  // through delivery's address rule) and writes claimed works as articles.
  ['works'],
  // The admin API: clients, webhook, people and the audit log, over their features' services.
  ['admin'],
  // The MCP server for AI assistants: tools over the search, profile and inquiry services.
  ['mcp'],
  // The public directory's pages read profiles, posts, Q&A and search, and send inquiries.
  ['directory'],
  ['demo'],
  ['cli'],
]
const FEATURES = LAYERS.flat()
const folders = (names) => `^src/(${names.join('|')})/`
/**
 * A folder's route files (routes.ts, *-routes.ts, *-route.ts) bind its URLs to their handlers. They sit
 * above the code of every folder, so that a URL's routes live in the folder named after its resource
 * even where their handlers call the services of a folder above it (an expert's sections and photo,
 * in src/experts, call src/profiles and src/media, which find experts through src/experts/repository.ts).
 * No other code imports a route file; among themselves, route files keep the layers.
 */
const routeFiles = (names) => `^src/(${names.join('|')})/[^/]*routes?\\.ts$`
const ROUTE_FILES = '^src/[^/]+/[^/]*routes?\\.ts$'
/**
 * The front of src/kept-reads: the hooks that keep and send read bodies, and the lane that answers kept
 * reads before Fastify. Both repeat the bearer check (src/auth), so they sit above src/auth's layer while
 * the rest of the folder, which src/auth's token check reads through, sits below it; only the
 * composition roots import them.
 */
const KEPT_READ_FRONT = '^src/kept-reads/(kept-reads|kept-read-lane)\\.ts$'
const AUTH_LAYER = LAYERS.findIndex((layer) => layer.includes('auth'))
/** Root files that build the app and the processes: they may import every folder but cli/. */
const COMPOSITION = ['app', 'server', 'cluster']
const rootFiles = (names) => `^src/(${names.join('|')})\\.ts$`

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A module reaches itself through its imports.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'shared-imports-no-feature',
      severity: 'error',
      comment:
        'src/http, src/db, src/validation, src/storage and src/limits are below every feature folder (migrations included: derived data is rebuilt by src/system/migrate.ts).',
      from: { path: folders(SHARED) },
      to: { path: folders(FEATURES) },
    },
    {
      name: 'root-foundation-imports-no-feature',
      severity: 'error',
      comment: `A root file other than ${COMPOSITION.join(', ')} (config.ts, ...) is below every folder: it imports no feature folder.`,
      from: { path: '^src/[^/]+\\.ts$', pathNot: rootFiles(COMPOSITION) },
      to: { path: [folders(FEATURES), rootFiles(COMPOSITION)] },
    },
    {
      name: 'composition-roots-only-from-cli',
      severity: 'error',
      comment: `${COMPOSITION.join(', ')} assemble the app and its processes: only src/cli and each other import them.`,
      from: { path: '^src/', pathNot: ['^src/cli/', rootFiles(COMPOSITION)] },
      to: { path: rootFiles(COMPOSITION) },
    },
    {
      name: 'root-files-import-no-cli',
      severity: 'error',
      comment: 'src/cli is the top: no root file imports it.',
      from: { path: '^src/[^/]+\\.ts$' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'no-value-import-of-node-http',
      severity: 'error',
      comment:
        'An ES import of node:http loads undici, http2, tls and worker threads (about 10 MiB resident): take its values from src/http/node-http.ts; type-only imports are fine.',
      from: { path: '^src/' },
      to: { path: '^(node:)?http$', dependencyTypesNot: ['type-only'] },
    },
    ...LAYERS.flatMap((layer, index) =>
      layer.map((folder) => ({
        name: `layers-${folder}`,
        severity: 'error',
        comment: `src/${folder} (but its route files) may import only folders of lower layers (see LAYERS in .dependency-cruiser.cjs).`,
        from: { path: `^src/${folder}/`, pathNot: [ROUTE_FILES, KEPT_READ_FRONT] },
        to: { path: folders(LAYERS.slice(index).flat().filter((other) => other !== folder)) },
      })),
    ),
    ...LAYERS.flatMap((layer, index) =>
      layer.map((folder) => ({
        name: `route-layers-${folder}`,
        severity: 'error',
        comment: `The route files of src/${folder} may import the code of any folder but src/cli, and only the route files of lower layers (see routeFiles in .dependency-cruiser.cjs).`,
        from: { path: routeFiles([folder]) },
        to: { path: [routeFiles(LAYERS.slice(index).flat().filter((other) => other !== folder)), '^src/cli/'] },
      })),
    ),
    {
      name: 'kept-read-front-below-the-features',
      severity: 'error',
      comment: 'The front of src/kept-reads (KEPT_READ_FRONT) may import src/auth and the layers below it, no folder above.',
      from: { path: KEPT_READ_FRONT },
      to: { path: [folders(LAYERS.slice(AUTH_LAYER + 1).flat()), '^src/cli/'] },
    },
    {
      name: 'kept-read-front-only-from-composition',
      severity: 'error',
      comment: 'Only the composition roots and the front of src/kept-reads itself import its front files.',
      from: { path: '^src/', pathNot: [rootFiles(COMPOSITION), KEPT_READ_FRONT] },
      to: { path: KEPT_READ_FRONT },
    },
    {
      name: 'only-routes-import-routes',
      severity: 'error',
      comment: 'Route files are the top of their folder: only other route files and the composition roots import them.',
      from: { path: folders(FEATURES), pathNot: ROUTE_FILES },
      to: { path: ROUTE_FILES },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
}
