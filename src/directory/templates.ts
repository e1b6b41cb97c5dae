import { Eta } from 'eta'
import { TEMPLATES } from './files.js'

/**
 * The directory's templates (`templates/*.eta`; Eta: `<%= %>` escapes, `<%~ %>` writes as is). Only three things are
 * written as is: the `<head>` tags the client package's metadata helper built (escaped there), HTML
 * fields of profiles, posts and answers (sanitized with an allow-list on every write, CONTRACT §9), and
 * one template's output inside another.
 */

export type TemplateName = keyof typeof TEMPLATES

const eta = new Eta({ autoEscape: true, autoTrim: false, cache: true })
for (const [name, template] of Object.entries(TEMPLATES)) eta.loadTemplate(`@${name}`, template)

/** Renders one of the directory's templates with `data` (`it` inside the template). */
export function render(name: TemplateName, data: object): string {
  return eta.render(`@${name}`, data)
}
