import { Eta } from 'eta'

/**
 * The directory's templates (Eta: `<%= %>` escapes, `<%~ %>` writes as is). Only three things are
 * written as is: the `<head>` tags the client package's metadata helper built (escaped there), HTML
 * fields of profiles, posts and answers (sanitized with an allow-list on every write, CONTRACT §9), and
 * one template's output inside another.
 */

const LAYOUT = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<% if (it.noindex) { %><meta name="robots" content="noindex, follow">
<% } %><%~ it.head %>
<link rel="icon" href="<%= it.site.logoUrl || 'data:,' %>">
<link rel="stylesheet" href="<%= it.assets %>/directory.css">
<link rel="stylesheet" href="<%= it.themeUrl %>">
<script src="<%= it.assets %>/directory.js" defer></script>
</head>
<body>
<a class="skip-link" href="#main">Skip to main content</a>
<header class="site-header">
<a class="site-home" href="<%= it.homeUrl %>"><% if (it.site.logoUrl) { %><img class="site-logo" src="<%= it.site.logoUrl %>" alt="" height="40"><% } %><span><%= it.site.name %> experts</span></a>
<nav class="site-nav" aria-label="Directory">
<ul>
<% for (const link of it.nav) { %><li><a href="<%= link.href %>"<% if (link.current) { %> aria-current="page"<% } %>><%= link.label %></a></li>
<% } %></ul>
</nav>
</header>
<main id="main">
<%~ it.body %>
</main>
<footer class="site-footer">
<p><%= it.site.name %><% if (it.site.website) { %> · <a href="<%= it.site.website %>">Website of <%= it.site.name %></a><% } %></p>
</footer>
</body>
</html>
`

const SEARCH = `<h1>Find an expert</h1>
<form class="search" role="search" method="get" action="<%= it.action %>">
<label for="q">Search by name, topic or keyword</label>
<div class="search-row">
<input id="q" name="q" type="search" value="<%= it.q %>" maxlength="200">
<% for (const hidden of it.hidden) { %><input type="hidden" name="<%= hidden.name %>" value="<%= hidden.value %>">
<% } %><button type="submit">Search</button>
</div>
</form>
<div class="search-layout<% if (it.facets.length === 0) { %> no-facets<% } %>">
<details class="filter">
<summary>Filter</summary>
<nav class="facets" aria-label="Filters">
<% for (const facet of it.facets) { %><h2><%= facet.title %></h2>
<ul>
<% for (const value of facet.values) { %><li><a href="<%= value.href %>"<% if (value.selected) { %> aria-current="true"<% } %>><%= value.label %> <span class="count">(<%= value.count %>)</span></a></li>
<% } %></ul>
<% if (facet.more.length > 0) { %><details class="more">
<summary>More <%= facet.title.toLowerCase() %> <span class="count">(<%= facet.more.length %>)</span></summary>
<ul>
<% for (const value of facet.more) { %><li><a href="<%= value.href %>"<% if (value.selected) { %> aria-current="true"<% } %>><%= value.label %> <span class="count">(<%= value.count %>)</span></a></li>
<% } %></ul>
</details>
<% } %><% } %><% if (it.clearHref) { %><p><a href="<%= it.clearHref %>">Clear all filters</a></p><% } %>
</nav>
</details>
<section id="results" class="results" aria-labelledby="results-heading">
<h2 id="results-heading" aria-live="polite"<% if (it.experts.length === 0) { %> class="no-results"<% } %>><%= it.summary %></h2>
<% if (it.experts.length === 0) { %><div class="empty">
<p>Some ways to find one:</p>
<ul>
<% if (it.q) { %><li>Check the spelling of “<%= it.q %>”.</li>
<li>Use fewer words, or more general ones<% if (it.broaderHref) { %>: <a href="<%= it.broaderHref %>">search without “<%= it.q %>”</a><% } %>.</li>
<% } %><% if (it.clearHref) { %><li><a href="<%= it.clearHref %>">Remove the filters</a>.</li>
<% } %><li><a href="<%= it.action %>">See every expert</a>.</li>
</ul>
<% if (it.suggestions.length > 0) { %><h3>Browse a topic</h3>
<ul class="chips">
<% for (const topic of it.suggestions) { %><li><a href="<%= topic.href %>"><%= topic.label %></a></li>
<% } %></ul>
<% } %></div>
<% } %><ol class="experts">
<% for (const expert of it.experts) { %><li class="expert-card">
<% if (expert.avatar) { %><img src="<%= expert.avatar %>" alt="" width="64" height="64" loading="lazy">
<% } %><div>
<h3><a href="<%= expert.href %>"><%= expert.name %></a></h3>
<% if (expert.role) { %><p class="role"><%= expert.role %></p><% } %>
<% if (expert.tagline) { %><p><%= expert.tagline %></p><% } %>
<% if (expert.topics.length > 0) { %><p class="topics">Topics: <%= expert.topics.join(', ') %></p><% } %>
</div>
</li>
<% } %></ol>
<% if (it.pages > 1) { %><nav class="pager" aria-label="Pages">
<% if (it.prevHref) { %><a rel="prev" href="<%= it.prevHref %>">Previous page</a><% } %>
<span>Page <%= it.page %> of <%= it.pages %></span>
<% if (it.nextHref) { %><a rel="next" href="<%= it.nextHref %>">Next page</a><% } %>
</nav><% } %>
</section>
</div>
`

const EXPERT = `<article class="profile">
<header class="profile-header">
<% if (it.photo) { %><img class="photo" src="<%= it.photo %>" alt="Photo of <%= it.name %>" width="200" height="200">
<% } %><div>
<h1><%= it.name %></h1>
<% if (it.role) { %><p class="role"><%= it.role %></p><% } %>
<% if (it.location) { %><p class="location"><%= it.location %></p><% } %>
<% if (it.tagline) { %><p class="tagline"><%= it.tagline %></p><% } %>
<p><a class="button" href="#contact">Contact <%= it.firstname %></a></p>
</div>
</header>
<% if (it.topics.length > 0) { %><section aria-labelledby="topics-heading">
<h2 id="topics-heading">Topics</h2>
<ul class="chips">
<% for (const topic of it.topics) { %><li><a href="<%= topic.href %>"><%= topic.name %></a></li>
<% } %></ul>
</section>
<% } %><% if (it.biography) { %><section aria-labelledby="biography-heading">
<h2 id="biography-heading">Biography</h2>
<div class="prose"><%~ it.biography %></div>
</section>
<% } %><% for (const list of it.lists) { %><section aria-labelledby="<%= list.id %>-heading">
<h2 id="<%= list.id %>-heading"><%= list.title %></h2>
<ul>
<% for (const item of list.items) { %><li><% if (item.href) { %><a href="<%= item.href %>"><%= item.text %></a><% } else { %><%= item.text %><% } %><% if (item.detail) { %> <span class="detail">– <%= item.detail %></span><% } %></li>
<% } %></ul>
</section>
<% } %></article>
<section id="contact" class="contact" aria-labelledby="contact-heading">
<h2 id="contact-heading">Contact <%= it.firstname %></h2>
<% if (it.otherKinds.length > 0) { %><p>Writing about something else? <% for (const kind of it.otherKinds) { %><a href="<%= kind.href %>"><%= kind.label %></a> <% } %></p>
<% } %><%~ it.form %>
</section>
`

const CONTACT_FORM = `<form class="contact-form" method="post" action="<%= it.action %>">
<% if (it.problem) { %><div class="form-problem" role="alert" id="form-problem">
<p><%= it.problem %></p>
<% if (it.errors.length > 0) { %><ul>
<% for (const error of it.errors) { %><li><a href="#f-<%= error.field %>"><%= error.label %>: <%= error.message %></a></li>
<% } %></ul><% } %>
</div>
<% } %><input type="hidden" name="token" value="<%= it.token %>">
<input type="hidden" name="kind" value="<%= it.kind %>">
<p class="hint">Fields marked with * are required.</p>
<p class="recipients"><%= it.recipients %></p>
<% for (const field of it.fields) { %><div class="field">
<label for="f-<%= field.name %>"><%= field.label %><% if (field.required) { %> <span aria-hidden="true">*</span><% } %></label>
<% if (field.control === 'textarea') { %><textarea id="f-<%= field.name %>" name="<%= field.name %>" rows="6" maxlength="<%= field.maxLength %>"<% if (field.required) { %> required<% } %><% if (field.error) { %> aria-invalid="true" aria-describedby="e-<%= field.name %>"<% } %>><%= field.value %></textarea>
<% } else if (field.control === 'select') { %><select id="f-<%= field.name %>" name="<%= field.name %>"<% if (field.required) { %> required<% } %><% if (field.error) { %> aria-invalid="true" aria-describedby="e-<%= field.name %>"<% } %>>
<option value="">Choose…</option>
<% for (const option of field.options) { %><option value="<%= option.value %>"<% if (option.value === field.value) { %> selected<% } %>><%= option.label %></option>
<% } %></select>
<% } else { %><input id="f-<%= field.name %>" name="<%= field.name %>" type="<%= field.control %>" value="<%= field.value %>"<% if (field.maxLength) { %> maxlength="<%= field.maxLength %>"<% } %><% if (field.autocomplete) { %> autocomplete="<%= field.autocomplete %>"<% } %><% if (field.required) { %> required<% } %><% if (field.error) { %> aria-invalid="true" aria-describedby="e-<%= field.name %>"<% } %>>
<% } %><% if (field.error) { %><p class="field-error" id="e-<%= field.name %>"><%= field.error %></p>
<% } %></div>
<% } %><div class="hp" aria-hidden="true"><label for="f-nickname">Leave this field empty</label><input id="f-nickname" name="nickname" type="text" tabindex="-1" autocomplete="off"></div>
<button type="submit">Send message</button>
</form>
`

const CONTACT_PAGE = `<p><a href="<%= it.expertHref %>">Back to <%= it.name %></a></p>
<h1><%= it.title %></h1>
<% if (it.message) { %><p class="notice" role="status"><%= it.message %></p><% } %>
<% if (it.form) { %><section class="contact" aria-label="Contact form"><%~ it.form %></section><% } %>
`

const POST = `<article class="post">
<h1><%= it.title %></h1>
<p class="meta"><% if (it.published) { %><time datetime="<%= it.published.iso %>"><%= it.published.text %></time> · <% } %><%= it.readingTime %> min read</p>
<% if (it.image) { %><img class="featured" src="<%= it.image %>" alt=""><% } %>
<div class="prose"><%~ it.html %></div>
<% if (it.experts.length > 0) { %><section aria-labelledby="experts-heading">
<h2 id="experts-heading">Experts in this post</h2>
<ul>
<% for (const expert of it.experts) { %><li><a href="<%= expert.href %>"><%= expert.name %></a><% if (expert.role) { %>, <%= expert.role %><% } %></li>
<% } %></ul>
</section>
<% } %><% if (it.tags.length > 0) { %><p class="tags">Tags: <%= it.tags.join(', ') %></p><% } %>
</article>
`

const QUESTION = `<article class="qanda">
<h1><%= it.question %></h1>
<% if (it.details) { %><div class="prose"><%~ it.details %></div><% } %>
<h2><%= it.answers.length === 1 ? '1 answer' : it.answers.length + ' answers' %></h2>
<% for (const answer of it.answers) { %><section class="answer" aria-label="Answer by <%= answer.name %>">
<p class="answer-by"><a href="<%= answer.href %>"><%= answer.name %></a><% if (answer.role) { %>, <%= answer.role %><% } %></p>
<div class="prose"><%~ answer.html %></div>
</section>
<% } %><% if (it.tags.length > 0) { %><p class="tags">Tags: <%= it.tags.join(', ') %></p><% } %>
</article>
`

const ERROR = `<div class="error-page">
<h1><%= it.title %></h1>
<p><%= it.message %></p>
<% if (it.homeUrl) { %><form class="search" role="search" method="get" action="<%= it.homeUrl %>">
<label for="q">Search the experts</label>
<div class="search-row">
<input id="q" name="q" type="search" maxlength="200">
<button type="submit">Search</button>
</div>
</form>
<p><a href="<%= it.homeUrl %>">Go to the list of experts</a></p>
<% } %></div>
`

const LIST = `<h1><%= it.title %></h1>
<form class="search" role="search" method="get" action="<%= it.action %>">
<label for="q"><%= it.searchLabel %></label>
<div class="search-row">
<input id="q" name="q" type="search" value="<%= it.q %>" maxlength="200">
<button type="submit">Search</button>
</div>
</form>
<section class="results list-results" aria-labelledby="results-heading">
<h2 id="results-heading"<% if (it.items.length === 0) { %> class="no-results"<% } %>><%= it.summary %></h2>
<% if (it.items.length === 0 && it.q) { %><p class="empty">Check the spelling, use fewer words, or <a href="<%= it.action %>">see them all</a>.</p>
<% } %><ol class="items">
<% for (const item of it.items) { %><li class="item">
<h3><a href="<%= item.href %>"><%= item.title %></a></h3>
<% if (item.date) { %><p class="meta"><time datetime="<%= item.date.iso %>"><%= item.date.text %></time></p><% } %>
<% if (item.summary) { %><p><%= item.summary %></p><% } %>
<% if (item.people.length > 0) { %><p class="detail"><%= item.peopleLabel %>: <%= item.people.join(', ') %></p><% } %>
</li>
<% } %></ol>
<% if (it.pages > 1) { %><nav class="pager" aria-label="Pages">
<% if (it.prevHref) { %><a rel="prev" href="<%= it.prevHref %>">Previous page</a><% } %>
<span>Page <%= it.page %> of <%= it.pages %></span>
<% if (it.nextHref) { %><a rel="next" href="<%= it.nextHref %>">Next page</a><% } %>
</nav><% } %>
</section>
`

const ERROR_LAYOUT = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title><%= it.title %></title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="<%= it.assets %>/directory.css">
</head>
<body>
<main id="main">
<%~ it.body %>
</main>
</body>
</html>
`

const URLSET = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<% for (const url of it.urls) { %><url><loc><%= url.loc %></loc><% if (url.lastmod) { %><lastmod><%= url.lastmod %></lastmod><% } %></url>
<% } %></urlset>
`

const SITEMAP_INDEX = `<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<% for (const loc of it.sitemaps) { %><sitemap><loc><%= loc %></loc></sitemap>
<% } %></sitemapindex>
`

const TITLE = `<title><%= it.title %></title>`

const TEMPLATES = {
  title: TITLE,
  layout: LAYOUT,
  search: SEARCH,
  expert: EXPERT,
  contactForm: CONTACT_FORM,
  contactPage: CONTACT_PAGE,
  post: POST,
  question: QUESTION,
  error: ERROR,
  errorLayout: ERROR_LAYOUT,
  list: LIST,
  urlset: URLSET,
  sitemapIndex: SITEMAP_INDEX,
}

export type TemplateName = keyof typeof TEMPLATES

const eta = new Eta({ autoEscape: true, autoTrim: false, cache: true })
for (const [name, template] of Object.entries(TEMPLATES)) eta.loadTemplate(`@${name}`, template)

/** Renders one of the directory's templates with `data` (`it` inside the template). */
export function render(name: TemplateName, data: object): string {
  return eta.render(`@${name}`, data)
}
