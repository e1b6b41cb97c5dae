import { rmSync } from 'node:fs'
import { build, type Plugin } from 'esbuild'
import * as directoryFiles from '../src/directory/files.js'

/**
 * `npm run build` (last step): the server as a few ES module files in `dist/bundle/` (`expertdir.js`, what
 * `npm start` and the `expertdir` command run, and its chunks), built from `src/` by esbuild. One file for
 * the ~1,350 modules a started server loads takes 5-8 MiB off its idle memory: each ES module costs its
 * own records and source text (docs/performance.md, "Memory"). What a process loads later stays separate:
 * every `import()` is its own chunk, loaded when first needed, as before.
 *
 * Names are kept (whitespace and syntax are squeezed, identifiers are not renamed), so a stack trace reads
 * as the source does; with `NODE_OPTIONS=--enable-source-maps` it names the `src/` files and lines (the
 * `.map` files beside).
 *
 * The output must sit two folders below the package root, as `dist/<folder>/` does: the dashboard's files
 * are found relative to the module (`src/dashboard/routes.ts`).
 */

/**
 * Packages loaded as installed, from `node_modules`, never copied into the bundle:
 * - native addons: `@node-rs/argon2`, `sharp`;
 * - packages that read their own files at run time: `@fastify/swagger-ui` (its static folder), and
 *   `@fastify/swagger` with it (both use `yaml`; one copy of it, not two);
 * - what only a feature a process may never serve loads (SSO, MCP, PostgreSQL, Redis, mail, S3, metrics,
 *   HTML sanitizing, the word diff of versions): it stays where it is, loaded on first use as before.
 * Our own `import()` of a package (`ioredis`, `@node-rs/argon2`, the MCP SDK) keeps it external too.
 */
const INSTALLED = [
  '@node-rs/argon2',
  'sharp',
  '@fastify/swagger',
  '@fastify/swagger-ui',
  '@node-saml/node-saml',
  'openid-client',
  '@modelcontextprotocol/sdk',
  'pg',
  'ioredis',
  'nodemailer',
  '@aws-sdk/client-s3',
  'prom-client',
  'sanitize-html',
  'iso-3166',
  '@zxcvbn-ts/language-common',
  'diff',
]

const packageOf = (specifier: string) => specifier.split('/', specifier.startsWith('@') ? 2 : 1).join('/')
const isBare = (specifier: string) => !/^(\.|\/|node:)/.test(specifier)

const keepInstalled: Plugin = {
  name: 'keep-installed',
  setup(bundle) {
    bundle.onResolve({ filter: /.*/ }, ({ path, kind }) => {
      if (!isBare(path)) return undefined
      if (INSTALLED.includes(packageOf(path)) || kind === 'dynamic-import') return { path, external: true }
      return undefined
    })
  },
}

/**
 * `src/directory/files.ts` as its values: the directory's built browser scripts, stylesheet and
 * templates, evaluated here (the same code as a run from the sources), so the bundle holds them and
 * neither reads `src/` nor loads esbuild.
 */
const embedDirectoryFiles: Plugin = {
  name: 'embed-directory-files',
  setup(bundle) {
    bundle.onLoad({ filter: /[\\/]src[\\/]directory[\\/]files\.ts$/ }, () => ({
      contents: Object.entries(directoryFiles)
        .map(([name, value]) => `export const ${name} = ${JSON.stringify(value)}`)
        .join('\n'),
      loader: 'js',
    }))
  },
}

const outdir = process.argv[2] ?? 'dist/bundle'
rmSync(outdir, { recursive: true, force: true })
const result = await build({
  entryPoints: { expertdir: 'src/cli/start.ts' },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  minifyWhitespace: true,
  minifySyntax: true,
  keepNames: true,
  sourcemap: true,
  tsconfig: 'tsconfig.build.json',
  plugins: [keepInstalled, embedDirectoryFiles],
  logLevel: 'warning',
  // CommonJS packages inside the bundle still call `require`, and a few read `__dirname`.
  banner: {
    js: [
      "import { createRequire as __bundleRequire } from 'node:module';",
      "import { dirname as __bundleDirname } from 'node:path';",
      "import { fileURLToPath as __bundleFilePath } from 'node:url';",
      'const require = __bundleRequire(import.meta.url);',
      'const __filename = __bundleFilePath(import.meta.url);',
      'const __dirname = __bundleDirname(__filename);',
    ].join(' '),
  },
})
if (result.errors.length > 0 || result.warnings.length > 0) process.exit(1)
