/** Database times are unix milliseconds; the API serves unix seconds. */
export function toSeconds(ms: number): number
export function toSeconds(ms: number | null): number | null
export function toSeconds(ms: number | null): number | null {
  return ms === null ? null : Math.floor(Number(ms) / 1000)
}
