import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'

/** Served by the API server at /admin/ (src/dashboard/routes.ts): hashed files under /admin/assets/. */
export default defineConfig({
  base: '/admin/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    // The CSP forbids inline scripts: never inline the module preload polyfill.
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
  },
})
