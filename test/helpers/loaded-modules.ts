/**
 * Preloaded into a child process (`--import`, after tsx): records the URL of every module the process
 * loads, ES modules and CommonJS alike (Node's synchronous module hooks), then Node's own modules as
 * `builtin:<name>` (internal ones included, from `process.moduleLoadList`), and writes them, one a line,
 * to the file named by LOADED_MODULES_FILE when the process exits.
 */
import { writeFileSync } from 'node:fs'
import { registerHooks } from 'node:module'

const loaded = new Set<string>()

registerHooks({
  load(url, context, nextLoad) {
    loaded.add(url)
    return nextLoad(url, context)
  },
})

process.on('exit', () => {
  const file = process.env.LOADED_MODULES_FILE
  const { moduleLoadList } = process as NodeJS.Process & { moduleLoadList: string[] }
  const builtins = moduleLoadList.flatMap((entry) => {
    const name = /^NativeModule (.+)$/.exec(entry)?.[1]
    return name ? [`builtin:${name}`] : []
  })
  if (file) writeFileSync(file, [...loaded, ...builtins].join('\n'))
})
