/**
 * Packages a server on SQLite with the default configuration loads only when configured or first used
 * (docs/performance.md, "Idle memory"): each costs memory in every process that never needs it.
 */
export const LOADED_ON_USE = [
  'pg',
  'ioredis',
  'nodemailer',
  'sharp',
  '@node-rs/argon2',
  '@aws-sdk/client-s3',
  'prom-client',
  'sanitize-html',
  '@zxcvbn-ts/language-common',
  '@node-saml/node-saml',
  'openid-client',
  '@modelcontextprotocol/sdk',
  'iso-3166',
]

/** The npm packages among recorded module URLs. */
export const packagesOf = (urls: string[]) =>
  new Set(urls.flatMap((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1] ?? []))
