// What /docs shows of FollowUp in place of @fastify/swagger-ui's defaults (the Fastify logo and
// the title "Swagger UI"): our name in the tab and in the top bar, as the docs site shows it.

/** @internal The title of `/docs`, in the browser's tab. */
export const DOCS_TITLE = 'FollowUp API reference';

/**
 * @internal The top bar's logo: a mark and the name, white on Swagger UI's dark bar. Attributes
 * only, no `<style>`, so that the page's Content-Security-Policy needs no hash for it.
 */
export const DOCS_LOGO_SVG = [
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 184 40" width="184" height="40">',
  '<title>FollowUp</title>',
  '<rect x="2" y="4" width="32" height="32" rx="8" fill="#2563eb"/>',
  '<path d="M10 21l6 6 11-13" fill="none" stroke="#ffffff" stroke-width="4"',
  ' stroke-linecap="round" stroke-linejoin="round"/>',
  '<text x="44" y="28" fill="#ffffff" font-family="system-ui, -apple-system, Segoe UI, Roboto,',
  ' Helvetica, Arial, sans-serif" font-size="22" font-weight="700">FollowUp</text>',
  '</svg>',
].join('');

/** @internal The tab's icon: the logo's mark alone. */
export const DOCS_FAVICON_SVG = [
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">',
  '<rect width="32" height="32" rx="8" fill="#2563eb"/>',
  '<path d="M8 17l6 6 11-13" fill="none" stroke="#ffffff" stroke-width="4"',
  ' stroke-linecap="round" stroke-linejoin="round"/>',
  '</svg>',
].join('');

/**
 * @internal A script run after Swagger UI's own: the logo it puts in the top bar is an `<img>`
 * without a text alternative (axe: image-alt), inside a link to this page; name both. Swagger UI
 * draws the bar after load, and the logo is swapped in after that, so keep watching: an image
 * already named is left alone.
 */
export const DOCS_THEME_SCRIPT = `new MutationObserver(() => {
  const image = document.querySelector('#swagger-ui .topbar-wrapper img:not([alt])');
  if (!image) return;
  image.alt = 'FollowUp';
  image.closest('a')?.setAttribute('aria-label', 'FollowUp API reference');
}).observe(document.documentElement, { childList: true, subtree: true });
`;
