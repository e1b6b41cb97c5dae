import { enhanceStory } from './story.js'

/**
 * Progressive enhancement of the find-an-expert page: results follow the search box as one types
 * (the same page fetched with the new query; its results replace the shown ones). Without
 * JavaScript the form and the links do the same, one page load at a time.
 */
function enhanceSearch(): void {
  const form = document.querySelector<HTMLFormElement>('form.search')
  const results = document.getElementById('results')
  if (!form || !results || !window.fetch || !window.DOMParser) return
  const input = form.querySelector<HTMLInputElement>('input[name="q"]')
  let timer = 0
  let latest = 0
  const update = async () => {
    const url = new URL(form.action)
    new FormData(form).forEach((value, key) => {
      if (value !== '') url.searchParams.append(key, String(value))
    })
    const request = ++latest
    const response = await fetch(url, { headers: { accept: 'text/html' } })
    if (!response.ok || request !== latest) return
    const page = new DOMParser().parseFromString(await response.text(), 'text/html')
    const fresh = page.getElementById('results')
    const facets = page.querySelector('nav.facets')
    if (!fresh) return
    results.replaceChildren(...fresh.childNodes)
    const shown = document.querySelector('nav.facets')
    if (facets && shown) shown.replaceChildren(...facets.childNodes)
    const layout = document.querySelector('.search-layout')
    const freshLayout = page.querySelector('.search-layout')
    if (layout && freshLayout) layout.className = freshLayout.className
    history.replaceState(null, '', url)
  }
  input?.addEventListener('input', () => {
    clearTimeout(timer)
    timer = setTimeout(() => update().catch(() => {}), 250)
  })
}

enhanceSearch()
enhanceStory()
