import { randomUUID } from 'node:crypto'
import { createReadStream, mkdirSync } from 'node:fs'
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { MEDIA_KEY } from './keys.js'
import type { MediaStorage, OpenedObject, StoredObject } from './storage.js'

/** Unfinished writes: a file here is renamed into place once whole, or removed by `media gc`. */
const TEMPORARY = '.tmp'
const TEMPORARY_KEY = /^\.tmp\/[0-9a-f-]{36}$/

function isMissing(error: unknown): boolean {
  return error instanceof Error && 'code' in error && error.code === 'ENOENT'
}

/**
 * Media in a folder (`EXPERTDIR_MEDIA_DIR`), created when opened. A write goes to a temporary file
 * in the same folder, is flushed to disk, then renamed into place: rename is atomic on one file system.
 */
export function folderStorage(dir: string): MediaStorage {
  const root = resolve(dir)
  mkdirSync(join(root, TEMPORARY), { recursive: true })
  const pathOf = (key: string, allowTemporary = false) => {
    if (!MEDIA_KEY.test(key) && !(allowTemporary && TEMPORARY_KEY.test(key)))
      throw new Error(`Not a media key: ${key}`)
    return join(root, key)
  }

  return {
    location: root,

    async put(key, bytes) {
      const target = pathOf(key)
      const temporary = join(root, TEMPORARY, randomUUID())
      try {
        const file = await open(temporary, 'wx')
        try {
          await file.writeFile(bytes)
          await file.sync()
        } finally {
          await file.close()
        }
        await mkdir(join(target, '..'), { recursive: true })
        await rename(temporary, target)
      } catch (error) {
        await rm(temporary, { force: true })
        throw error
      }
    },

    async open(key): Promise<OpenedObject | undefined> {
      const path = pathOf(key)
      try {
        const info = await stat(path)
        if (!info.isFile()) return undefined
        return { body: createReadStream(path), bytes: info.size }
      } catch (error) {
        if (isMissing(error)) return undefined
        throw error
      }
    },

    async delete(keys) {
      for (const key of keys) await rm(pathOf(key, true), { force: true })
    },

    async *list(): AsyncIterable<StoredObject> {
      for (const folder of await readdir(root)) {
        let names: string[]
        try {
          names = await readdir(join(root, folder))
        } catch (error) {
          if (isMissing(error) || (error instanceof Error && 'code' in error && error.code === 'ENOTDIR'))
            continue
          throw error
        }
        for (const name of names) {
          const key = `${folder}/${name}`
          if (!MEDIA_KEY.test(key) && !TEMPORARY_KEY.test(key)) continue
          try {
            yield { key, modifiedAt: (await stat(join(root, key))).mtimeMs }
          } catch (error) {
            if (!isMissing(error)) throw error
          }
        }
      }
    },

    async close() {},
  }
}
