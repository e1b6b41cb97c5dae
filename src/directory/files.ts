import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { buildSync, transformSync } from 'esbuild'

/**
 * The directory's files that are not server code, as the server serves or renders them: the browser
 * scripts (`browser/*.ts`, type-checked by `browser/tsconfig.json`) built by esbuild into one script
 * each, the pages' stylesheet (`browser/directory.css`) minified, and the Eta templates
 * (`templates/*.eta`) as they are.
 *
 * Run from the sources (tsx, the tests, tsc's `dist/`), this module reads and builds them when it
 * loads. The bundle holds its exports as they were at build time (scripts/bundle-server.ts evaluates
 * this module and puts its values in its place), so a bundled server reads nothing from `src/` and
 * does not load esbuild. Its exports must therefore be plain data.
 */

/** `src/directory/`, from here or from tsc's `dist/directory/` (both two folders below the package root). */
const FOLDER = new URL('../../src/directory/', import.meta.url)

const text = (path: string) => readFileSync(new URL(path, FOLDER), 'utf8')

/** One browser script with what it imports (its stylesheet as text), as a classic script. */
function browserScript(path: string): string {
  const [output] = buildSync({
    entryPoints: [path],
    absWorkingDir: fileURLToPath(FOLDER),
    tsconfig: 'browser/tsconfig.json',
    bundle: true,
    format: 'iife',
    target: 'es2022',
    charset: 'utf8',
    loader: { '.css': 'text' },
    write: false,
    logLevel: 'silent',
  }).outputFiles
  if (!output) throw new Error(`esbuild wrote nothing for ${path}`)
  return output.text
}

const minifiedCss = (path: string) => transformSync(text(path), { loader: 'css', minify: true }).code

export const SEARCH_SCRIPT = browserScript('browser/search.ts')
export const WIDGET_SCRIPT = browserScript('browser/widget.ts')
export const STYLESHEET = minifiedCss('browser/directory.css')

export const TEMPLATES = {
  title: text('templates/title.eta'),
  layout: text('templates/layout.eta'),
  search: text('templates/search.eta'),
  expert: text('templates/expert.eta'),
  mediaKit: text('templates/media-kit.eta'),
  contactForm: text('templates/contact-form.eta'),
  contactPage: text('templates/contact-page.eta'),
  post: text('templates/post.eta'),
  question: text('templates/question.eta'),
  error: text('templates/error.eta'),
  errorLayout: text('templates/error-layout.eta'),
  list: text('templates/list.eta'),
  story: text('templates/story.eta'),
  matches: text('templates/matches.eta'),
  similar: text('templates/similar.eta'),
  urlset: text('templates/urlset.eta'),
  sitemapIndex: text('templates/sitemap-index.eta'),
}
