import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { RouterProvider } from '@tanstack/react-router'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { ApiFailure } from './api/failure.ts'
import { router } from './router.tsx'
import './styles.css'

const queries = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 10_000,
      // A refusal (4xx) will not change by asking again.
      retry: (count, error) => !(error instanceof ApiFailure && error.status < 500) && count < 2,
    },
  },
})

const container = document.getElementById('root')
if (!container) throw new Error('index.html has no #root')
createRoot(container).render(
  <StrictMode>
    <QueryClientProvider client={queries}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  </StrictMode>,
)
