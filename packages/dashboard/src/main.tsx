import { QueryClientProvider } from '@tanstack/react-query'
import { RouterProvider } from '@tanstack/react-router'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { queries } from './api/queries.ts'
import { router } from './router.tsx'
import './styles.css'

const container = document.getElementById('root')
if (!container) throw new Error('index.html has no #root')
createRoot(container).render(
  <StrictMode>
    <QueryClientProvider client={queries}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  </StrictMode>,
)
