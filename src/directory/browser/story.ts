/**
 * Progressive enhancement of the "describe your story" page: a live count of the characters left under
 * the text box (the server says the same when a longer text is sent without JavaScript).
 */
export function enhanceStory(): void {
  const text = document.querySelector<HTMLTextAreaElement>('form.story textarea')
  const hint = document.getElementById('story-hint')
  if (!text || !hint) return
  const max = Number(text.dataset.max)
  if (!Number.isInteger(max) || max <= 0) return
  hint.classList.add('story-count')
  hint.setAttribute('aria-live', 'polite')
  const update = () => {
    const used = [...text.value].length
    hint.textContent =
      used > max
        ? `${(used - max).toLocaleString('en')} characters too many (at most ${max.toLocaleString('en')}).`
        : `${used.toLocaleString('en')} of ${max.toLocaleString('en')} characters.`
    hint.toggleAttribute('data-over', used > max)
  }
  text.addEventListener('input', update)
  update()
}
