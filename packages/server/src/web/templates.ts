import { Eta } from 'eta/core';

// Eta with autoEscape: `<%= value %>` is HTML-escaped (& < > " '); only `<%~ value %>` writes
// raw HTML, and our templates use it for nothing but HTML we rendered ourselves (a page's body
// in the layout). Templates are strings in TypeScript modules, compiled once at start: the
// package ships no template files to find at run time.
const eta = new Eta({ autoEscape: true, autoTrim: false, useWith: false, varName: 'it' });

/**
 * A compiled template that renders `Data` to HTML. Make one with {@link defineTemplate}.
 */
export interface Template<Data extends object> {
  /** Renders the template with `data`; every `<%= … %>` in it is HTML-escaped. */
  render(data: Data): string;
}

/**
 * Compiles an Eta template (`<%= it.name %>` escapes, `<% … %>` runs JavaScript) into a typed
 * {@link Template}. Call it once, at module level, not per request.
 *
 * Escaping makes text safe in element content and in quoted attribute values. It does not make a
 * URL safe in `href` or `src` (a `javascript:` URL survives escaping): never put a stored value
 * there; link to our own paths built from ids.
 *
 * @example
 * ```ts
 * const greeting = defineTemplate<{ name: string }>('<p>Hello, <%= it.name %></p>');
 * greeting.render({ name: '<script>' }); // '<p>Hello, &lt;script&gt;</p>'
 * ```
 */
export function defineTemplate<Data extends object>(source: string): Template<Data> {
  const compiled = eta.compile(source);
  return { render: (data) => compiled.call(eta, data) };
}

/** @internal The HTML escaping the templates use, for the rare string built outside one. */
export function escapeHtml(value: unknown): string {
  return eta.config.escapeFunction(value);
}
