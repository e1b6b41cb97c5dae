import { hash, randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto'

function scryptAsync(
  secret: string,
  salt: Buffer,
  keyLength: number,
  options: ScryptOptions,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(secret, salt, keyLength, options, (error, key) => (error ? reject(error) : resolve(key)))
  })
}

/** scrypt cost: about 30-60 ms per check on a 2-core machine, off the event loop. */
const COST = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 }
const KEY_LENGTH = 32

/** A random, URL-safe string of `bytes` bytes of entropy. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url')
}

/** Hash of a client secret for storage: `scrypt$N$r$p$salt$key` (salt and key base64url). */
export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16)
  const key = await scryptAsync(secret, salt, KEY_LENGTH, COST)
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64url'), key.toString('base64url')].join('$')
}

/** Constant-time check of a secret against a stored hash. */
export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split('$')
  if (scheme !== 'scrypt' || !salt || !key) return false
  const expected = Buffer.from(key, 'base64url')
  const actual = await scryptAsync(secret, Buffer.from(salt, 'base64url'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: COST.maxmem,
  })
  return timingSafeEqual(actual, expected)
}

/** A hash of the same cost as a real one, so that an unknown client takes as long as a wrong secret. */
export const DECOY_SECRET_HASH = await hashSecret(randomToken())

/** SHA-256 of an access token, hex: what the database holds instead of the token. */
export function hashToken(token: string): string {
  return hash('sha256', token, 'hex')
}
