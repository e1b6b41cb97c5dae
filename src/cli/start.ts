#!/usr/bin/env node
/**
 * The `expertdir` command's entry (`dist/bundle/expertdir.js`). It checks the Node version before the
 * program loads: the program's modules need Node 22.16 or later (`node:sqlite`, newer syntax), and on an
 * older Node they would fail with an error that does not say why. So this file imports nothing and uses
 * nothing an old Node lacks; the program comes in through `import()` once the check has passed.
 */

/** package.json `engines.node`, and scripts/ensure-node.mjs. */
const REQUIRED = [22, 16] as const

const [major = 0, minor = 0] = process.versions.node.split('.').map(Number)
if (major < REQUIRED[0] || (major === REQUIRED[0] && minor < REQUIRED[1])) {
  process.stderr.write(
    [
      `expertdir needs Node ${REQUIRED.join('.')} or later; this is Node ${process.version} (${process.execPath}).`,
      'In the project folder, `npm install` has brought a newer Node for the project; run the command with it:',
      '  node_modules/.bin/node dist/bundle/expertdir.js <command>',
      'or from the source: npm run expertdir -- <command>',
      'Or install Node 22, 24 or 26 (docs/deploy.md, "Node").',
      '',
    ].join('\n'),
  )
  process.exit(1)
}

await import('./main.js')
