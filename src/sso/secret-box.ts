import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto'

/**
 * Encryption at rest of the secrets the service must use later (an OpenID Connect client secret):
 * unlike a client's own secret, it cannot be a hash. AES-256-GCM under `EXPERTDIR_SECRET_KEY`, a
 * fresh 96-bit nonce per value, and the record the value belongs to as associated data, so a stored
 * value copied into another organization's row does not decrypt. Stored as
 * `v1.<key id>.<nonce>.<tag>.<ciphertext>` (base64url); the key id (the first bytes of the key's
 * SHA-256) tells a value sealed under another key apart from a damaged one.
 */
export interface SecretBox {
  seal(plain: string, context: string): string
  /** Throws `SecretKeyMismatch` when the value was sealed under another key, or was altered. */
  open(sealed: string, context: string): string
}

export class SecretKeyMismatch extends Error {
  constructor(reason: string) {
    super(reason)
    this.name = 'SecretKeyMismatch'
  }
}

const VERSION = 'v1'

/** The 32 bytes of a configured key: 64 hex digits or base64 (either alphabet). */
export function decodeKey(key: string): Buffer {
  const bytes = /^[0-9a-fA-F]{64}$/.test(key) ? Buffer.from(key, 'hex') : Buffer.from(key, 'base64')
  if (bytes.length !== 32) throw new Error('EXPERTDIR_SECRET_KEY must hold 32 bytes (openssl rand -hex 32)')
  return bytes
}

export function createSecretBox(key: string): SecretBox {
  const bytes = decodeKey(key)
  const keyId = createHash('sha256').update(bytes).digest('base64url').slice(0, 8)
  return {
    seal(plain, context) {
      const nonce = randomBytes(12)
      const cipher = createCipheriv('aes-256-gcm', bytes, nonce)
      cipher.setAAD(Buffer.from(context, 'utf8'))
      const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
      return [VERSION, keyId, nonce, cipher.getAuthTag(), ciphertext]
        .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
        .join('.')
    },
    open(sealed, context) {
      const [version, id, nonce, tag, ciphertext] = sealed.split('.')
      if (version !== VERSION || nonce === undefined || tag === undefined || ciphertext === undefined) {
        throw new SecretKeyMismatch('the stored secret is not in a known format')
      }
      if (id !== keyId) throw new SecretKeyMismatch('the stored secret was encrypted under another key')
      try {
        const decipher = createDecipheriv('aes-256-gcm', bytes, Buffer.from(nonce, 'base64url'))
        decipher.setAAD(Buffer.from(context, 'utf8'))
        decipher.setAuthTag(Buffer.from(tag, 'base64url'))
        return Buffer.concat([
          decipher.update(Buffer.from(ciphertext, 'base64url')),
          decipher.final(),
        ]).toString('utf8')
      } catch {
        throw new SecretKeyMismatch('the stored secret does not decrypt: it was altered')
      }
    },
  }
}
