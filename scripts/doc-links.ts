import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

/**
 * `npm run docs:links` (part of `npm run lint`): every relative link of README.md and docs/*.md must name a
 * file of the repository, and every `#anchor` a heading of its target, as GitHub derives heading anchors.
 * Links to other sites are not fetched.
 */
const ROOT = resolve(import.meta.dirname, '..')
const documents = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
]

/** The text of a document outside fenced code blocks and inline code spans, where links are links. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '')
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .replace(/<[^>]+>/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
    .replace(/ /g, '-')
}

const anchorCache = new Map<string, Set<string>>()
function anchorsOf(file: string): Set<string> {
  const known = anchorCache.get(file)
  if (known) return known
  const anchors = new Set<string>()
  const markdown = readFileSync(file, 'utf8').replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '')
  for (const [, text] of markdown.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(text ?? '')
    let anchor = base
    for (let n = 1; anchors.has(anchor); n++) anchor = `${base}-${n}`
    anchors.add(anchor)
  }
  for (const [, id] of markdown.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(id ?? '')
  anchorCache.set(file, anchors)
  return anchors
}

const problems: string[] = []
for (const document of documents) {
  const path = join(ROOT, document)
  for (const [, target] of prose(readFileSync(path, 'utf8')).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    if (target === undefined || /^[a-z][a-z0-9+.-]*:/i.test(target)) continue
    const [file = '', anchor] = target.split('#')
    const linked = file === '' ? path : resolve(dirname(path), decodeURIComponent(file))
    if (!existsSync(linked)) {
      problems.push(`${document}: ${target}: no such file`)
      continue
    }
    if (anchor === undefined || statSync(linked).isDirectory() || !linked.endsWith('.md')) continue
    if (!anchorsOf(linked).has(decodeURIComponent(anchor))) {
      problems.push(`${document}: ${target}: ${relative(ROOT, linked)} has no heading with that anchor`)
    }
  }
}
if (problems.length > 0) {
  console.error(problems.join('\n'))
  process.exit(1)
}
