// The HTTP API reference of the docs site: the server's OpenAPI document in Swagger UI, as a
// running server's /docs shows it (the same Swagger UI build, from @fastify/swagger-ui), in one
// self-contained page: its script, its styles and the document are inlined, so that typedoc can
// copy it into the site as one file and the page loads nothing from elsewhere. Read-only: a
// static page has no server to "Try it out" against (a running server's /docs does).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const swaggerUi = join(
  new URL('..', import.meta.url).pathname,
  'node_modules/@fastify/swagger-ui/static',
);

// Swagger UI's colours that fail WCAG AA contrast (axe: color-contrast) on a white page, and
// focus made visible: darker shades of its own method colours, and its grey texts darkened.
const accessibleColours = `
.swagger-ui .opblock .opblock-summary-method { color: #fff; }
.swagger-ui .opblock.opblock-get .opblock-summary-method { background: #1d6fb8; }
.swagger-ui .opblock.opblock-post .opblock-summary-method { background: #1a7f4b; }
.swagger-ui .opblock.opblock-put .opblock-summary-method { background: #a3550a; }
.swagger-ui .opblock.opblock-patch .opblock-summary-method { background: #16806f; }
.swagger-ui .opblock.opblock-delete .opblock-summary-method { background: #c0262d; }
.swagger-ui .opblock .opblock-summary-description,
.swagger-ui .opblock-tag small,
.swagger-ui .info .base-url,
.swagger-ui .parameter__in,
.swagger-ui .parameter__type,
.swagger-ui .prop-format,
.swagger-ui .response-col_links { color: #3b4151; }
.swagger-ui .info a, .swagger-ui .info .link { color: #1d4ed8; }
.swagger-ui .info .title small { background: #505866; }
.swagger-ui .btn.authorize { color: #1a7f4b; border-color: #1a7f4b; }
.swagger-ui .btn.authorize svg { fill: #1a7f4b; }
.swagger-ui .json-schema-2020-12-expand-deep-button { color: #3b4151; }
.swagger-ui .info .title small.version-stamp { background: #3d6b00; }
.swagger-ui :focus-visible { outline: 3px solid #1d4ed8; outline-offset: 2px; }
`;

/**
 * Text for an inline `<script>` or `<style>`: no `</script` or `</style` in it can end the
 * element early (in the bundle and the document such text can only be inside a string, where
 * `<\/` reads the same).
 */
function inline(text) {
  return text.replace(/<\/(script|style)/gi, '<\\/$1');
}

/**
 * The page: `title` in the tab and a heading, then Swagger UI's BaseLayout (no top bar with a
 * URL box: the document is this one) rendering `document`, operations grouped by tag.
 */
export function httpApiPage({ document, title }) {
  const css = readFileSync(join(swaggerUi, 'swagger-ui.css'), 'utf8');
  const bundle = readFileSync(join(swaggerUi, 'swagger-ui-bundle.js'), 'utf8');
  const config = {
    dom_id: '#swagger-ui',
    layout: 'BaseLayout',
    // Deep links put an <a> inside each operation's button (axe: nested-interactive).
    deepLinking: false,
    docExpansion: 'list',
    // No "Try it out": a static page calls no server.
    supportedSubmitMethods: [],
    validatorUrl: null,
    spec: document,
  };
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>${inline(css)}</style>
<style>${accessibleColours}</style>
</head>
<body>
<main id="swagger-ui" aria-label="${title}"></main>
<script>${inline(bundle)}</script>
<script>window.ui = SwaggerUIBundle(${inline(JSON.stringify(config))});</script>
</body>
</html>
`;
}
