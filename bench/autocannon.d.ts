/** The part of autocannon's programmatic API the bench uses (the package ships no types). */
declare module 'autocannon' {
  interface Histogram {
    average: number
    mean: number
    p50: number
    p90: number
    p99: number
    max: number
    total: number
  }
  export interface Result {
    requests: Histogram
    latency: Histogram
    throughput: Histogram
    errors: number
    timeouts: number
    non2xx: number
    duration: number
    '2xx': number
  }
  export interface Options {
    url: string
    method?: string
    headers?: Record<string, string>
    body?: string
    requests?: { setupRequest?: (request: object) => object }[]
    connections?: number
    duration?: number
    overallRate?: number
    timeout?: number
  }
  export default function autocannon(options: Options): Promise<Result>
}
