import { assetPaths } from './assets.js';
import type { NavigationItem } from './navigation.js';
import { defineTemplate } from './templates.js';

/** @internal What the layout around every page needs. */
export interface LayoutData {
  title: string;
  /** The page's own HTML, rendered by its template (escaped there). */
  body: string;
  /**
   * A success message about the change just made ("Token revoked."), shown once above the
   * page's content in a `role="status"` region.
   */
  notice?: string | undefined;
  /** The path of the page, to mark its navigation link as current. */
  currentPath: string;
  /** Signed in: who, their navigation and the CSRF token of the Sign out form. */
  signedIn?: {
    name: string;
    email: string;
    role: string;
    navigation: readonly NavigationItem[];
    csrfToken: string;
  };
}

/** @internal The document around every page: head, skip link, header, navigation, Sign out. */
export const layoutTemplate = defineTemplate<
  LayoutData & { assets: typeof assetPaths }
>(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title><%= it.title %> · FollowUp</title>
<link rel="icon" href="<%= it.assets.icon %>" type="image/svg+xml">
<link rel="stylesheet" href="<%= it.assets.css %>">
<script src="<%= it.assets.js %>" defer></script>
<% if (it.signedIn) { %><meta name="csrf-token" content="<%= it.signedIn.csrfToken %>">
<% } %></head>
<body>
<a class="skip-link" href="#main">Skip to content</a>
<header class="site-header">
<a class="brand" href="/">FollowUp</a>
<% if (it.signedIn) { %>
<nav class="site-nav" aria-label="Main">
<ul>
<% for (const item of it.signedIn.navigation) { %>
<li><a href="<%= item.href %>"<% if (item.href === it.currentPath) { %> aria-current="page"<% } %>><%= item.label %></a></li>
<% } %>
</ul>
</nav>
<div class="account">
<% const who = it.signedIn.name || it.signedIn.email; %><span class="who" title="<%= who %> (<%= it.signedIn.role %>)"><span class="who-name"><%= who %></span> <span class="who-role">(<%= it.signedIn.role %>)</span></span>
<form method="post" action="/signout">
<input type="hidden" name="_csrf" value="<%= it.signedIn.csrfToken %>">
<button type="submit" class="secondary">Sign out</button>
</form>
</div>
<% } %>
</header>
<main id="main">
<% if (it.notice) { %><p class="notice success" role="status"><%= it.notice %></p>
<% } %><%~ it.body %>
</main>
</body>
</html>
`);

/** @internal Renders a whole document around a page's body. */
export function renderDocument(data: LayoutData): string {
  return layoutTemplate.render({ ...data, assets: assetPaths });
}
