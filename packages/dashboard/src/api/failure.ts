/** A failed API call, with the server's message and its per-field validation messages. */
export class ApiFailure extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
    /** Field name -> the server's message for it. */
    readonly fields: Readonly<Record<string, string>> = {},
  ) {
    super(message)
    this.name = 'ApiFailure'
  }
}

interface ErrorBody {
  error?: { code?: string; message?: string; details?: { field: string; message: string }[] }
}

function isErrorBody(value: unknown): value is ErrorBody {
  return typeof value === 'object' && value !== null && 'error' in value
}

/** The failure of a response: the envelope's message and details, or a plain sentence for anything else. */
export function failureOf(body: unknown, status: number): ApiFailure {
  if (!isErrorBody(body) || !body.error)
    return new ApiFailure(`The server answered ${status}. Try again in a moment.`, status, 'unknown')
  const fields: Record<string, string> = {}
  for (const detail of body.error.details ?? []) {
    // `biography.biography` or `/title` name the same field as `biography` / `title`; an item of a list
    // (`interview_languages.1`) is the list's field.
    const name =
      detail.field
        .replace(/^\//, '')
        .split(/[./]/)
        .filter((part) => !/^[0-9]+$/.test(part))
        .pop() ?? detail.field
    fields[name] ??= detail.message
  }
  return new ApiFailure(
    body.error.message ?? 'The request failed.',
    status,
    body.error.code ?? 'unknown',
    fields,
  )
}

/** The data of an openapi-fetch result, or its failure thrown. */
export function dataOf<T>(result: { data?: { data: T }; error?: unknown; response: Response }): T {
  if (result.data === undefined) throw failureOf(result.error, result.response.status)
  return result.data.data
}

export function messageOf(error: unknown): string {
  if (error instanceof ApiFailure) return error.message
  if (error instanceof TypeError) return 'The server cannot be reached. Check your connection and try again.'
  return error instanceof Error ? error.message : String(error)
}
