/**
 * Preloaded into a child process (`--import`, after tsx): records the URL of every module the process
 * loads, ES modules and CommonJS alike (Node's synchronous module hooks), then Node's own modules as
 * `builtin:<name>` (internal ones included, from `process.moduleLoadList`), and writes them, one a line,
 * to the file named by LOADED_MODULES_FILE when the process exits. A first use of ICU's locale data
 * (collation, date formats, `toLocale...String`) is recorded as `icu:<what>`: it pages in megabytes of it.
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

function recordFirstCall<T extends object>(owner: T, name: keyof T & string) {
  const original = owner[name]
  if (typeof original !== 'function') throw new Error(`${name} is not a function`)
  Object.defineProperty(owner, name, {
    configurable: true,
    writable: true,
    value: new Proxy(original, {
      apply(target, self, args) {
        loaded.add(`icu:${name}`)
        return Reflect.apply(target, self, args)
      },
      construct(target, args, newTarget) {
        loaded.add(`icu:${name}`)
        return Reflect.construct(target, args, newTarget)
      },
    }),
  })
}
recordFirstCall(String.prototype, 'localeCompare')
for (const name of ['toLocaleString', 'toLocaleDateString', 'toLocaleTimeString'] as const)
  recordFirstCall(Date.prototype, name)
for (const name of ['Collator', 'DateTimeFormat'] as const) recordFirstCall(Intl, name)

process.on('exit', () => {
  const file = process.env.LOADED_MODULES_FILE
  const moduleLoadList: unknown = Reflect.get(process, 'moduleLoadList')
  const entries = Array.isArray(moduleLoadList) ? moduleLoadList : []
  const builtins = entries.flatMap((entry) => {
    const name = /^NativeModule (.+)$/.exec(String(entry))?.[1]
    return name ? [`builtin:${name}`] : []
  })
  if (file) writeFileSync(file, [...loaded, ...builtins].join('\n'))
})
