/**
 * Import rules of src/ (`npm run lint`): no circular imports; the shared layers (http, db, validation)
 * import no feature folder; a feature folder imports only folders of a lower layer, so no two folders
 * ever import each other. A new folder goes into the layer list below.
 */
const SHARED = ['http', 'db', 'validation']
/** Lowest first. A folder may import the shared layers and the folders of the layers before its own. */
const LAYERS = [
  ['auth', 'documents', 'experts', 'organizations'],
  ['content', 'inquiries'],
  ['search'],
  ['profiles', 'delivery'],
  ['import', 'system'],
  ['demo'],
  ['cli'],
]
const FEATURES = LAYERS.flat()
const folders = (names) => `^src/(${names.join('|')})/`

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
      comment: 'src/http, src/db and src/validation are below every feature folder.',
      // One exception: the migration that creates the search index fills it with the index's own code,
      // so that existing data is indexed exactly as the write path indexes it.
      from: { path: folders(SHARED), pathNot: '^src/db/migrations/0006_search\\.ts$' },
      to: { path: folders(FEATURES) },
    },
    ...LAYERS.flatMap((layer, index) =>
      layer.map((folder) => ({
        name: `layers-${folder}`,
        severity: 'error',
        comment: `src/${folder} may import only folders of lower layers (see LAYERS in .dependency-cruiser.cjs).`,
        from: { path: `^src/${folder}/` },
        to: { path: folders(LAYERS.slice(index).flat().filter((other) => other !== folder)) },
      })),
    ),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
}
