// A built typedoc site served over loopback HTTP for the docs-site test's browser, as a static
// host serves it.
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { deflateSync } from 'node:zlib';

const types = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
};

/**
 * Serves `site` over HTTP on a free loopback port, as a static host would. With `contentOnly`,
 * what the axe pass has its pages leave out is left out here, by the server: the navigation's
 * data is an empty list, and the search's data, images and fonts are not found. (The browser
 * then keeps its cache: Chromium's cache is off in a context where Playwright routes requests,
 * and each routed request is a round trip to this process.)
 */
export async function serveSite(site, { contentOnly = false } = {}) {
  // typedoc's navigation data is a deflated, base64 JSON list.
  const emptyNavigation = `window.navigationData = "${deflateSync('[]').toString('base64')}"`;
  const server = createServer((request, response) => {
    // A hosted site would have one; without it the browser's own request is a 404 to ignore.
    if (request.url === '/favicon.ico') return void response.writeHead(204).end();
    const path = normalize(decodeURIComponent(new URL(request.url, 'http://site').pathname));
    // As a static host serves them: the browser keeps the shared scripts and styles (and the
    // code it compiled from them) across the 568 pages rather than fetch them each time.
    const cached = { 'cache-control': 'max-age=3600' };
    if (contentOnly && path === '/assets/navigation.js') {
      return void response
        .writeHead(200, { 'content-type': types['.js'], ...cached })
        .end(emptyNavigation);
    }
    if (
      contentOnly &&
      (path === '/assets/search.js' || /\.(png|jpe?g|gif|webp|woff2?|ttf|otf)$/.test(path))
    ) {
      return void response.writeHead(404).end();
    }
    const file = join(site, path.endsWith('/') ? `${path}index.html` : path);
    if (!file.startsWith(site) || !existsSync(file)) return void response.writeHead(404).end();
    response.writeHead(200, {
      'content-type': types[extname(file)] ?? 'application/octet-stream',
      ...(extname(file) === '.html' ? {} : cached),
    });
    response.end(readFileSync(file));
  }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

/** The root URL of a server `serveSite` started. */
export function urlOf(server) {
  return `http://127.0.0.1:${server.address().port}`;
}

/** Stops a server `serveSite` started. */
export function stopServing(server) {
  server?.closeAllConnections();
  server?.close();
}
