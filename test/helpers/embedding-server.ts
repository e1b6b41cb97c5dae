import http, { type IncomingMessage, type ServerResponse } from 'node:http'
import { listeningPort } from './net.js'

/**
 * A loopback stand-in for an OpenAI-compatible embeddings API: a real `node:http` server on 127.0.0.1,
 * port 0, answering `POST /v1/embeddings` `{"model", "input": [...]}` with deterministic vectors: a
 * hashed bag of words (lower case, a few stop words dropped, each word counted in one of DIMENSIONS
 * buckets by its FNV-1a hash), L2-normalised. SYNONYMS send a word to another word's bucket, which is
 * what an embedding finds and words do not (`cardiac` lands where `heart` does). Every request is
 * logged; a fault replaces the replies until it is cleared.
 */

export const DIMENSIONS = 256

const SYNONYMS: Record<string, string> = {
  cardiac: 'heart',
  cardiologist: 'heart',
  myocardial: 'heart',
  coronary: 'heart',
}

const STOP_WORDS = new Set(
  'a an and are as at be by for from has have in is it of on or that the their this to with who we our'.split(
    ' ',
  ),
)

function fnv1a(word: string): number {
  let hash = 0x811c9dc5
  for (const byte of Buffer.from(word, 'utf8')) {
    hash ^= byte
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash
}

/** The vector the server gives a text. */
export function hashedVector(text: string): number[] {
  const vector = new Array<number>(DIMENSIONS).fill(0)
  for (const raw of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (raw === '' || STOP_WORDS.has(raw)) continue
    const word = SYNONYMS[raw] ?? raw
    const bucket = fnv1a(word) % DIMENSIONS
    vector[bucket] = (vector[bucket] ?? 0) + 1
  }
  const length = Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0))
  return length === 0 ? vector : vector.map((value) => value / length)
}

export type EmbeddingFault =
  | { kind: 'status'; status: number; retryAfter?: string }
  /** Never answers (until the client gives up). */
  | { kind: 'hang' }
  | { kind: 'malformed' }

export interface EmbeddingRequest {
  model: string
  input: string[]
  authorization: string | undefined
}

export interface EmbeddingServer {
  /** The API's base URL (`http://127.0.0.1:PORT/v1`). */
  readonly url: string
  readonly requests: EmbeddingRequest[]
  /** Every text embedded so far, in order. */
  inputs(): string[]
  fault(fault: EmbeddingFault | undefined): void
  close(): Promise<void>
}

export async function startEmbeddingServer(): Promise<EmbeddingServer> {
  const requests: EmbeddingRequest[] = []
  const hanging = new Set<ServerResponse>()
  let fault: EmbeddingFault | undefined

  function answer(request: IncomingMessage, response: ServerResponse, body: string) {
    if (request.method !== 'POST' || request.url !== '/v1/embeddings') {
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}')
      return
    }
    let parsed: { model?: unknown; input?: unknown }
    try {
      parsed = JSON.parse(body)
    } catch {
      response.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"bad json"}')
      return
    }
    const input = Array.isArray(parsed.input) ? parsed.input.map(String) : [String(parsed.input)]
    requests.push({ model: String(parsed.model), input, authorization: request.headers.authorization })
    if (fault?.kind === 'hang') {
      hanging.add(response)
      response.on('close', () => hanging.delete(response))
      return
    }
    if (fault?.kind === 'status') {
      response
        .writeHead(fault.status, {
          'content-type': 'application/json',
          ...(fault.retryAfter ? { 'retry-after': fault.retryAfter } : {}),
        })
        .end('{"error":{"message":"fault"}}')
      return
    }
    if (fault?.kind === 'malformed') {
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[{"index":0}]}')
      return
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        object: 'list',
        model: parsed.model,
        // In reverse order: the client must place each vector by its index.
        data: input
          .map((text, index) => ({ object: 'embedding', index, embedding: hashedVector(text) }))
          .reverse(),
      }),
    )
  }

  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => answer(request, response, Buffer.concat(chunks).toString('utf8')))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${listeningPort(server)}/v1`,
    requests,
    inputs: () => requests.flatMap((request) => request.input),
    fault(next) {
      fault = next
      if (next?.kind !== 'hang') for (const response of hanging) response.destroy()
    },
    async close() {
      for (const response of hanging) response.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
