import assert from 'node:assert/strict'
import { test } from 'node:test'
import { loadConfig } from '../src/config.js'

test('the configuration fills defaults and reads numbers, switches and lists from the environment', () => {
  const defaults = loadConfig({}, {})
  assert.equal(defaults.port, 3000)
  assert.equal(defaults.logLevel, 'info')
  assert.equal(defaults.metrics, false)
  assert.deepEqual(defaults.corsOrigins, [])

  const config = loadConfig(
    { host: '0.0.0.0' },
    {
      PORT: '8080',
      HOST: '127.0.0.1',
      EXPERTDIR_METRICS: '1',
      EXPERTDIR_CORS_ORIGINS: 'https://a.example/, https://b.example',
      EXPERTDIR_PUBLIC_URL: 'https://experts.example/',
    },
  )
  assert.equal(config.port, 8080)
  assert.equal(config.host, '0.0.0.0', 'an explicit setting wins over the environment')
  assert.equal(config.metrics, true)
  assert.deepEqual(config.corsOrigins, ['https://a.example', 'https://b.example'])
  assert.equal(config.publicUrl, 'https://experts.example')
  assert.equal(loadConfig({}, { EXPERTDIR_METRICS: 'true' }).metrics, true)
  assert.equal(loadConfig({}, { EXPERTDIR_METRICS: '0' }).metrics, false)
  assert.equal(loadConfig({}, { EXPERTDIR_METRICS: '' }).metrics, false, 'empty is unset')
})

test('a bad setting is refused with its environment name and what it must be', () => {
  assert.throws(() => loadConfig({}, { PORT: 'abc' }), {
    message: 'Invalid configuration: PORT must be integer',
  })
  assert.throws(() => loadConfig({}, { PORT: '70000', LOG_LEVEL: 'loud' }), {
    message:
      'Invalid configuration: PORT must be <= 65535; LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent',
  })
  assert.throws(() => loadConfig({}, { EXPERTDIR_METRICS: 'yes' }), /EXPERTDIR_METRICS must be boolean/)
  assert.throws(() => loadConfig({}, { EXPERTDIR_CORS_ORIGINS: 'x' }), /EXPERTDIR_CORS_ORIGINS must match/)
})

test('embeddings are off unless a URL is set, and a URL needs its model', () => {
  const defaults = loadConfig({}, {})
  assert.equal(defaults.embeddingsUrl, undefined)
  assert.equal(defaults.embeddingsBatchSize, 64)
  const on = loadConfig(
    {},
    { EXPERTDIR_EMBEDDINGS_URL: 'http://127.0.0.1:8080/v1/', EXPERTDIR_EMBEDDINGS_MODEL: 'nomic-embed-text' },
  )
  assert.equal(on.embeddingsUrl, 'http://127.0.0.1:8080/v1')
  assert.equal(on.embeddingsModel, 'nomic-embed-text')
  assert.throws(() => loadConfig({}, { EXPERTDIR_EMBEDDINGS_URL: 'http://127.0.0.1:8080/v1' }), {
    message:
      'Invalid configuration: EXPERTDIR_EMBEDDINGS_MODEL is required when EXPERTDIR_EMBEDDINGS_URL is set',
  })
  assert.throws(
    () => loadConfig({}, { EXPERTDIR_EMBEDDINGS_URL: 'ftp://x', EXPERTDIR_EMBEDDINGS_MODEL: 'm' }),
    /EXPERTDIR_EMBEDDINGS_URL must match pattern/,
  )
})
