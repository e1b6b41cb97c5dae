/**
 * Counts type assertions (`x as T`, `<T>x`; `as const` is not one) in src/ and test/ and fails when a
 * folder has more than its ceiling. The ceilings are the counts when the check was added: they may
 * only go down. Lower a ceiling when casts are removed. `--list` prints each cast.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import ts from 'typescript'

const CEILINGS: Record<string, number> = { src: 37, test: 44 }

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts'))
    .map((entry) => join(entry.parentPath, entry.name))
}

function castsIn(file: string): number[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true)
  const lines: number[] = []
  const visit = (node: ts.Node) => {
    const isConst =
      ts.isAsExpression(node) &&
      ts.isTypeReferenceNode(node.type) &&
      node.type.typeName.getText(source) === 'const'
    if ((ts.isAsExpression(node) && !isConst) || ts.isTypeAssertionExpression(node))
      lines.push(source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1)
    ts.forEachChild(node, visit)
  }
  visit(source)
  return lines
}

const list = process.argv.includes('--list')
let failed = false
for (const [dir, ceiling] of Object.entries(CEILINGS)) {
  let count = 0
  for (const file of filesUnder(dir)) {
    const lines = castsIn(file)
    count += lines.length
    if (list) for (const line of lines) console.log(`${file}:${line}`)
  }
  const verdict = count > ceiling ? 'over its ceiling' : 'within its ceiling'
  console.log(`${dir}/: ${count} casts, ceiling ${ceiling} (${verdict})`)
  if (count > ceiling) failed = true
}
if (failed) process.exit(1)
