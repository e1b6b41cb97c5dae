import { QueryClient } from '@tanstack/react-query'
import { ApiFailure } from './failure.ts'

/** The page's one query cache: the screens read through it, and the router's guards read the session from it. */
export const queries = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 10_000,
      // A refusal (4xx) will not change by asking again.
      retry: (count, error) => !(error instanceof ApiFailure && error.status < 500) && count < 2,
    },
  },
})
