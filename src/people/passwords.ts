import { createRequire } from 'node:module'
import { DEFAULT_PASSWORD_MEMORY_KIB } from '../config.js'

/** Loaded on first use: the first sign-in or password, not the start of every process. */
const argon2 = () => import('@node-rs/argon2')

/** argon2id (the package default algorithm) at OWASP's minimum, m=19 MiB, t=2, p=1: about 120 ms per hash here. */
const ARGON2 = { memoryCost: DEFAULT_PASSWORD_MEMORY_KIB, timeCost: 2, parallelism: 1 }

/**
 * Sets the memory cost of the hashes made from now on in this process (`passwordMemoryKib`, applied by
 * the app and the CLI from their config). A hash carries its own parameters, so the ones made before
 * still verify.
 */
export function usePasswordMemoryCost(kib: number): void {
  ARGON2.memoryCost = kib
}

export const MIN_PASSWORD_LENGTH = 12
/** Long enough for any passphrase, short enough that hashing it costs no more than usual. */
export const MAX_PASSWORD_LENGTH = 256

/**
 * The common-password list of zxcvbn-ts (about 49,000 passwords seen most often in breaches, MIT
 * licence), lower-cased, built on first use.
 */
let common: Set<string> | undefined
function commonPasswords(): Set<string> {
  if (!common) {
    const { dictionary }: typeof import('@zxcvbn-ts/language-common') = createRequire(import.meta.url)(
      '@zxcvbn-ts/language-common',
    )
    common = new Set(dictionary['passwords-common'].map((word) => word.toLowerCase()))
  }
  return common
}

/** Why `password` may not be used, as a sentence, or undefined when it may. */
export function passwordProblem(password: string, email?: string): string | undefined {
  const length = [...password].length
  if (length < MIN_PASSWORD_LENGTH) return `must be at least ${MIN_PASSWORD_LENGTH} characters long`
  if (length > MAX_PASSWORD_LENGTH) return `must be at most ${MAX_PASSWORD_LENGTH} characters long`
  const lower = password.toLowerCase()
  if (commonPasswords().has(lower)) return 'is one of the most common passwords: choose another'
  if (email !== undefined && lower === email.toLowerCase()) return 'must not be the email address'
  return undefined
}

export async function hashPassword(password: string): Promise<string> {
  return (await argon2()).hash(password, ARGON2)
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  return (await argon2()).verify(stored, password).catch(() => false)
}

/**
 * A hash that matches no password: verified against when the email is unknown, so that an unknown
 * account costs as much time as a known one and the answer's timing does not tell them apart.
 */
let decoy: Promise<string> | undefined
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(`decoy-${Math.random()}-${Date.now()}`)
  return decoy
}
