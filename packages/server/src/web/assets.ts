import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

// The stylesheet and the one script of the web application. They are TypeScript strings so that
// the built package carries them without files to locate at run time. Contrast ratios are at
// least 4.5:1 (axe checks every page).
const stylesheet = `
:root { color-scheme: light; --ink: #1b1f24; --muted: #4d5561; --line: #d0d7de; --accent: #0b5cad;
  --danger: #a4161a; --bg: #ffffff; --soft: #f4f6f8; font-family: system-ui, -apple-system,
  "Segoe UI", Roboto, sans-serif; line-height: 1.5; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--ink); background: var(--bg); }
a { color: var(--accent); }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible,
textarea:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.skip-link { position: absolute; left: -9999px; }
.skip-link:focus { left: 1rem; top: 1rem; background: var(--bg); padding: .5rem; z-index: 1; }
.site-header { display: flex; flex-wrap: wrap; align-items: center; gap: 1rem 2rem;
  padding: .75rem 1.5rem; border-bottom: 1px solid var(--line); background: var(--soft); }
.brand { font-weight: 700; color: var(--ink); text-decoration: none; }
.site-nav ul { display: flex; flex-wrap: wrap; gap: .25rem 1rem; list-style: none; margin: 0;
  padding: 0; }
.site-nav a[aria-current="page"] { font-weight: 700; color: var(--ink); }
.account { margin-left: auto; display: flex; align-items: center; justify-content: flex-end;
  gap: .75rem; color: var(--muted); flex: 1 1 0; min-width: 14rem; max-width: 100%; }
.who { display: flex; min-width: 0; gap: .25rem; white-space: nowrap; }
.who-name { overflow: hidden; text-overflow: ellipsis; min-width: 2rem; }
.who-role { flex: none; }
.account form { flex: none; }
main { max-width: 72rem; margin: 0 auto; padding: 1.5rem; }
h1 { font-size: 1.6rem; margin: 0 0 1rem; overflow-wrap: anywhere; }
table { border-collapse: collapse; width: 100%; margin: 1rem 0; }
th, td { text-align: left; padding: .5rem; border-bottom: 1px solid var(--line);
  vertical-align: top; overflow-wrap: anywhere; }
form.stacked { display: grid; gap: .75rem; max-width: 26rem; }
label { display: grid; gap: .25rem; font-weight: 600; }
input, select, textarea { font: inherit; font-weight: 400; padding: .45rem .55rem; border: 1px solid #6e7781;
  border-radius: 4px; color: var(--ink); background: var(--bg); }
button, .button { font: inherit; padding: .45rem .9rem; border-radius: 4px; cursor: pointer;
  border: 1px solid var(--accent); background: var(--accent); color: #ffffff;
  text-decoration: none; display: inline-block; }
button.secondary { background: var(--bg); color: var(--accent); }
button.danger { background: var(--danger); border-color: var(--danger); }
.notice { padding: .75rem 1rem; border-radius: 4px; border: 1px solid var(--line);
  background: var(--soft); margin: 1rem 0; }
.notice.success { border-color: #116329; color: #116329; background: #eefbf1; }
.notice.error { border-color: var(--danger); color: var(--danger); background: #fff5f5; }
.notice.warning { border-color: #8a5a00; color: #5c3c00; background: #fff8e5; }
.secret { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; word-break: break-all;
  background: var(--soft); padding: .5rem; border: 1px solid var(--line); border-radius: 4px; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--soft); padding: .75rem;
  border: 1px solid var(--line); border-radius: 4px; }
.muted { color: var(--muted); }
.signin { max-width: 26rem; margin: 3rem auto; }
[data-js-only] { display: none; }
.js [data-js-only] { display: inline-block; }
th { white-space: nowrap; }
td { overflow-wrap: break-word; }
td code, td .url, .secret { overflow-wrap: anywhere; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden;
  clip: rect(0 0 0 0); clip-path: inset(50%); white-space: nowrap; }
form.inline { display: inline-flex; flex-wrap: wrap; gap: .4rem; align-items: center;
  margin: 0 .4rem .4rem 0; }
/* A filter form's labels on one line and their controls on the next: the labels take the height of
   the tallest, and each control fills the row under its text, a select as tall as a text field
   (the browser draws it a few pixels shorter); the button sits at the bottom, beside them. */
form.filters { display: flex; flex-wrap: wrap; gap: .75rem; align-items: stretch; margin: 1rem 0; }
form.filters label { grid-template-rows: auto 1fr; }
form.filters > button { align-self: end; }
.paging { display: flex; gap: 1.5rem; margin: 1rem 0; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .35rem 1.25rem; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
fieldset { border: 1px solid var(--line); border-radius: 4px; padding: .5rem .75rem; margin: 0; }
label.check { display: flex; gap: .5rem; align-items: center; font-weight: 400; }
caption { text-align: left; }
.table-scroll { overflow-x: auto; margin: 1rem 0; position: relative;
  /* A shadow on the side with more table to scroll to: the two covers move with the content and
     hide the shadows (fixed to the edges) once an end is reached. */
  background:
    linear-gradient(to right, var(--bg) 30%, rgb(255 255 255 / 0)) left center / 2.5rem 100%
      no-repeat local,
    linear-gradient(to left, var(--bg) 30%, rgb(255 255 255 / 0)) right center / 2.5rem 100%
      no-repeat local,
    linear-gradient(to right, rgb(0 0 0 / .2), rgb(0 0 0 / 0)) left center / .75rem 100%
      no-repeat scroll,
    linear-gradient(to left, rgb(0 0 0 / .2), rgb(0 0 0 / 0)) right center / .75rem 100%
      no-repeat scroll,
    var(--bg); }
.table-scroll > table { margin: 0; }
.table-scroll:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
input, select { max-width: 100%; }
label { min-width: 0; max-width: 100%; grid-template-columns: minmax(0, 1fr); }
@media (max-width: 40rem) {
  dl.facts { grid-template-columns: minmax(0, 1fr); gap: 0; }
  dl.facts dd { margin-bottom: .5rem; }
}
.badge { display: inline-block; padding: 0 .45rem; border-radius: 4px; border: 1px solid;
  font-size: .875rem; font-weight: 600; white-space: nowrap; }
/* Tints, not opaque colours (the same on white): a badge at the edge of a table that scrolls
   lets its scroll shadow show through. */
.badge.ok { color: #116329; border-color: #116329; background: rgb(17 99 41 / .07); }
.badge.warning { color: #5c3c00; border-color: #8a5a00; background: rgb(255 184 0 / .1); }
.badge.danger { color: var(--danger); border-color: var(--danger); background: rgb(164 22 26 / .04); }
.badge.off { color: var(--muted); border-color: var(--muted); background: rgb(77 85 97 / .06); }
.actions { display: flex; flex-wrap: wrap; align-items: center; gap: .4rem; }
/* The overview's charts (src/web/pages/hourly-chart.ts): each tone is at least 3:1 against the
   page, and every series but the first carries a white pattern, so colour is never the only cue. */
.chart { margin: 1rem 0 1.5rem; }
.chart figcaption { margin-bottom: .25rem; }
.chart-drawing { display: block; width: 100%; max-width: 48rem; height: auto; }
.chart-legend { display: flex; flex-wrap: wrap; gap: .25rem 1.25rem; list-style: none; margin: 0 0 .5rem;
  padding: 0; }
.chart-legend li { display: flex; align-items: center; gap: .4rem; }
.chart-legend svg { flex: none; border: 1px solid var(--ink); }
.chart-tone-green { color: #116329; }
.chart-tone-amber { color: #8a5a00; }
.chart-tone-red { color: #a4161a; }
.chart-tone-blue { color: #0b5cad; }
.chart-mark { fill: #ffffff; }
/* A solid outline in the series' colour: the bar's edge keeps its contrast where a pattern is white. */
.chart-bar { stroke: currentColor; stroke-width: 1; }
.chart-grid { stroke: var(--line); stroke-width: 1; }
.chart-text { fill: var(--muted); font-size: 12px; }
summary { cursor: pointer; color: var(--accent); }
summary:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
/* A URL cut with an ellipsis (whole in its title): never broken inside. In a table a fixed width,
   as a percentage there would not count in the column's width. */
a.overview-url { display: inline-block; max-width: min(22rem, 100%); overflow: hidden;
  text-overflow: ellipsis; white-space: nowrap; vertical-align: bottom; }
td a.overview-url { max-width: 22rem; }
@media (max-width: 40rem) { td a.overview-url { max-width: 11rem; } }
ul.attention { padding-left: 1.25rem; }
.nowrap { white-space: nowrap; }
ul.attention li { margin: .25rem 0; }
/* Readable tables: an id (shortened, with its copy button), an action name and a state badge
   never break inside; a URL may, anywhere, as it has no words to keep. */
.id, .action, .when { white-space: nowrap; }
td .id code, dd .id code, td code.action { overflow-wrap: normal; }
button.copy { font-size: .8rem; padding: 0 .4rem; margin-left: .3rem; background: var(--bg);
  color: var(--accent); vertical-align: baseline; }
.actor .kind { white-space: nowrap; }
/* A value wraps between words and never inside one: its column is at least its longest word
   wide (the table scrolls instead), as "anywhere" let a narrow screen cut "password" in two. */
dl.details { display: grid; grid-template-columns: max-content minmax(min-content, 1fr);
  gap: 0 .75rem; margin: 0; }
dl.details dt { font-weight: 600; }
dl.details dd { margin: 0; overflow-wrap: break-word; }
.rate { font-size: 1.25rem; font-weight: 700; }
/* A body as sent: lines kept whole, scrolled sideways (by keyboard too) rather than broken. */
pre.scroll { white-space: pre; overflow-wrap: normal; overflow-x: auto; }
pre.scroll:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
dl.headers dd code { overflow-wrap: anywhere; }
/* An endpoint's URL in a table cell: wide enough to read in lines of some length (the table
   scrolls sideways on a narrow screen) rather than a few characters a line. */
td a .url, td > .url { display: inline-block; min-width: 14rem; }
/* A row's actions: the primary one in sight, the rest in a <details> menu that opens in the flow
   of the cell (a table scrolling sideways would clip a menu floating over it). */
.row-actions { display: flex; flex-wrap: wrap; align-items: flex-start; gap: .4rem; }
.row-actions form.inline { margin: 0; }
.row-menu > summary { cursor: pointer; padding: .45rem .9rem; border: 1px solid var(--accent);
  border-radius: 4px; color: var(--accent); white-space: nowrap; }
.row-menu > summary:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.row-menu-items { display: grid; justify-items: start; gap: .4rem; margin-top: .4rem; }
.row-menu-items form.inline { margin: 0; }
button, .button { white-space: nowrap; }
/* A destructive action that leads to its confirm page; the confirm page's button is .danger. */
button.danger-outline { background: var(--bg); color: var(--danger); border-color: var(--danger); }
/* On a narrow screen a table of class "cards" shows each row as a card, each value under its
   column's heading (data-label), rather than in a column a few characters wide. */
@media (max-width: 40rem) {
  table.cards, table.cards tbody, table.cards tr, table.cards td { display: block; width: 100%; }
  table.cards thead { position: absolute; width: 1px; height: 1px; overflow: hidden;
    clip-path: inset(50%); }
  table.cards tr { border: 1px solid var(--line); border-radius: 4px; padding: .25rem .75rem;
    margin: 0 0 .75rem; }
  table.cards td { border: 0; padding: .35rem 0; }
  table.cards td[data-label]::before { content: attr(data-label); display: block;
    font-size: .875rem; font-weight: 600; color: var(--muted); }
  /* A cell with nothing in it (a row with no action): no heading over nothing. Its template
     writes nothing between <td> and </td> then, not even a line break. */
  table.cards td:empty { display: none; }
  table.cards caption { display: block; }
}
/* Issue token: "Custom number of days" shows only once chosen. A browser without :has(), or
   without this stylesheet, simply shows the field, which is then still usable. */
.expiry, .custom-days { display: grid; gap: .75rem; }
.custom-days { gap: .25rem; }
.expiry:has(option[value="custom"]:not(:checked)) .custom-days { display: none; }
/* Words that must not break: ids, states, times, event names, e-mail addresses in a table;
   and cells of names and titles that wrap between words only (their table scrolls instead). */
.no-break { white-space: nowrap; }
td.words, td.words dd { overflow-wrap: normal; }
.timeline { list-style: none; padding: 0; margin: 1rem 0; }
.timeline > li { border-bottom: 1px solid var(--line); padding: .5rem 0; }
.timeline p { margin: 0 0 .35rem; }
.timeline dl.facts { margin: 0; }
`;

// Progressive enhancement only: every form works without it. A `button[data-copy]` copies the
// text of the element whose id it names; a `button[data-copy-text]`, that attribute's text.
const script = `
document.documentElement.classList.add('js');
document.addEventListener('click', (event) => {
  const button = event.target instanceof Element ? event.target.closest('button[data-copy], button[data-copy-text]') : null;
  if (!button) return;
  // data-copy-text: the text itself (a whole id shown shortened); data-copy: an element's id.
  const source = document.getElementById(button.getAttribute('data-copy') || '');
  const text = button.getAttribute('data-copy-text') ?? source?.textContent;
  if (!text || !navigator.clipboard) return;
  navigator.clipboard.writeText(text).then(
    () => { button.textContent = 'Copied'; },
    () => { button.textContent = 'Copy failed: select the text'; },
  );
});
`;

// The icon of every page (an "F" on the accent colour), as SVG: one small file for every size.
const icon = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">
<rect width="32" height="32" rx="7" fill="#0b5cad"/>
<path d="M11 7h12v4.5h-7.5v3.5h6.5v4.5h-6.5V25H11z" fill="#ffffff"/>
</svg>
`;

interface Asset {
  path: string;
  contentType: string;
  body: string;
}

function fingerprinted(name: string, extension: string, contentType: string, body: string): Asset {
  const digest = createHash('sha256').update(body).digest('hex').slice(0, 12);
  return { path: `/assets/${name}.${digest}.${extension}`, contentType, body };
}

const css = fingerprinted('app', 'css', 'text/css; charset=utf-8', stylesheet);
const js = fingerprinted('app', 'js', 'text/javascript; charset=utf-8', script);
const svgIcon = fingerprinted('icon', 'svg', 'image/svg+xml', icon);

/** The fingerprinted paths of the web application's assets, for the layout. */
export const assetPaths = { css: css.path, js: js.path, icon: svgIcon.path } as const;

/**
 * @internal Serves the assets under `/assets/<name>.<hash>.<ext>`: a new content is a new URL,
 * so each may be cached for a year; and `/favicon.ico`, a redirect to the SVG icon.
 */
export function registerAssetRoutes(app: FastifyInstance): void {
  for (const asset of [css, js, svgIcon]) {
    app.get(asset.path, { schema: { hide: true } }, async (_request, reply) =>
      reply
        .header('Content-Type', asset.contentType)
        .header('Cache-Control', 'public, max-age=31536000, immutable')
        .send(asset.body),
    );
  }
  // Browsers, feed readers and bookmarking tools ask for /favicon.ico whatever the page links
  // to: send them to the SVG icon rather than a 404. Not permanent: the icon's URL changes with
  // its content.
  app.get('/favicon.ico', { schema: { hide: true } }, async (_request, reply) =>
    reply.redirect(svgIcon.path, 302),
  );
}
