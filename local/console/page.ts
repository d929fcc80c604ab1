/**
 * The developer console's page: one server-rendered HTML document with every section, plus
 * the stylesheet and icon it loads from the console itself (the Content-Security-Policy allows
 * nothing else: no script, no inline style).
 */
import { html, type Html } from './html';

/** Where the console lives on the API's origin. */
export const consolePath = '/_local';

/** A section as the page lays it out. */
export interface RenderedSection {
  id: string;
  title: string;
  body: Html;
  /** Starts folded (nothing to show yet). */
  folded?: boolean;
}

/** The whole page: each section folds (a `<details>`, open when the page loads unless `folded`; no script needed). */
export const consolePage = (input: { title: string; intro: Html; sections: RenderedSection[]; renderedAt: Date }): Html => html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${input.title}</title>
<link rel="stylesheet" href="${consolePath}/console.css">
<link rel="icon" href="${consolePath}/favicon.svg" type="image/svg+xml">
</head>
<body>
<header>
<h1>${input.title}</h1>
${input.intro}
<nav><ul>${input.sections.map((section) => html`<li><a href="#${section.id}">${section.title}</a></li>`)}<li><a href="${consolePath}/">Refresh</a></li></ul></nav>
<p class="meta">Rendered ${input.renderedAt.toISOString()}. Local runtime only: the deployed stack has no <code>/_local/</code> paths.</p>
</header>
<main>
${input.sections.map((section) => html`<section id="${section.id}">
${section.folded ? html`<details>` : html`<details open>`}
<summary><h2>${section.title}</h2></summary>
${section.body}
</details>
</section>
`)}
</main>
</body>
</html>
`;

/** The console's stylesheet (served at `/_local/console.css`). */
export const consoleStylesheet = `
:root { color-scheme: light dark; --line: #8884; --muted: #888; --ok: #1a7f37; --bad: #cf222e; --warn: #9a6700; }
body { font: 14px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 1200px; padding: 0 1rem 3rem; }
header { border-bottom: 1px solid var(--line); margin-bottom: 1rem; }
h1 { font-size: 1.4rem; margin: 1rem 0 .25rem; }
h2 { font-size: 1.15rem; border-bottom: 1px solid var(--line); padding-bottom: .25rem; margin: 0; display: inline-block; width: calc(100% - 1.5rem); }
section > details > summary { cursor: pointer; margin-top: 1.5rem; }
section > details:not([open]) > summary h2 { color: var(--muted); }
h3 { font-size: 1rem; margin: 0 0 .25rem; }
nav ul { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: .25rem 1rem; }
.meta, .empty { color: var(--muted); }
code, pre { font: 12px/1.4 ui-monospace, monospace; }
pre.email-text { max-height: none; }
table.effects td:nth-child(3) { white-space: nowrap; }
pre { white-space: pre-wrap; word-break: break-word; background: #8881; padding: .5rem; margin: .25rem 0; max-height: 24rem; overflow: auto; }
article { border: 1px solid var(--line); border-radius: 6px; padding: .6rem .8rem; margin: .6rem 0; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; vertical-align: top; padding: .25rem .5rem; border-bottom: 1px solid var(--line); }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .1rem .75rem; margin: .25rem 0; }
dt { color: var(--muted); }
dd { margin: 0; word-break: break-word; }
.status { display: inline-block; padding: 0 .4rem; border-radius: 4px; border: 1px solid currentColor; font-size: 12px; }
.status-fulfilled, .status-active, .status-done, .status-succeeded, .status-delivered, .status-posted, .status-verified { color: var(--ok); }
.status-failed, .status-payment_failed, .status-cancelled, .status-canceled, .status-review_required, .status-unknown, .status-expired, .status-invalid, .status-failing { color: var(--bad); }
.status-pending, .status-paid, .status-requires_payment_method, .status-unsigned, .status-suspended, .status-inactive { color: var(--warn); }
.actions { display: flex; gap: .5rem; margin: .4rem 0; }
.actions form { margin: 0; }
button { font: inherit; padding: .2rem .8rem; cursor: pointer; }
button.pay { font-weight: 600; }
h4 { font-size: .95rem; margin: .6rem 0 .2rem; }
.subscription { border-top: 1px dashed var(--line); padding-top: .3rem; }
table.sims form { display: flex; flex-wrap: nowrap; gap: .4rem; align-items: center; margin: 0; }
table.sims td { vertical-align: middle; padding-top: .15rem; padding-bottom: .15rem; }
table.sims label, table.sims td:nth-child(5) { white-space: nowrap; }
form.filter { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin: .4rem 0; }
.pages a { margin: 0 .25rem; }
input, select { font: inherit; }
.notice { border-left: 3px solid var(--warn); padding-left: .5rem; }
`;

/** The console's icon (served at `/_local/favicon.svg`, so the browser asks the API for no /favicon.ico). */
export const consoleIcon =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#0969da"/><path d="M4 5l3 3-3 3M8 11h4" stroke="#fff" stroke-width="1.6" fill="none"/></svg>';
