import { defineTemplate } from './templates.js';

/** @internal The sign-in form: Email, Password, Sign in. */
export const signInTemplate = defineTemplate<{ email: string; error?: string; next: string }>(`
<div class="signin">
<h1>Sign in</h1>
<% if (it.error) { %><p class="notice error" role="alert"><%= it.error %></p><% } %>
<form method="post" action="/signin" class="stacked">
<input type="hidden" name="next" value="<%= it.next %>">
<label for="email">Email
<input id="email" name="email" type="email" autocomplete="username" required maxlength="320" value="<%= it.email %>">
</label>
<label for="password">Password
<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="1024">
</label>
<button type="submit">Sign in</button>
</form>
<p class="muted">New here? An administrator sends you a sign-in link.</p>
</div>
`);

/** @internal The page of a sign-in link: Choose a password. */
export const choosePasswordTemplate = defineTemplate<{
  email: string;
  action: string;
  error?: string;
}>(`
<div class="signin">
<h1>Choose a password</h1>
<p>For <strong><%= it.email %></strong>. At least 12 characters.</p>
<% if (it.error) { %><p class="notice error" role="alert"><%= it.error %></p><% } %>
<form method="post" action="<%= it.action %>" class="stacked">
<input type="text" name="username" autocomplete="username" value="<%= it.email %>" hidden>
<label for="password">Password
<input id="password" name="password" type="password" autocomplete="new-password" required minlength="12" maxlength="1024">
</label>
<label for="confirmation">Confirm password
<input id="confirmation" name="confirmation" type="password" autocomplete="new-password" required minlength="12" maxlength="1024">
</label>
<button type="submit">Set password</button>
</form>
</div>
`);

/** @internal A used, expired or unknown sign-in link. */
export const linkUnusableTemplate = defineTemplate<Record<string, never>>(`
<div class="signin">
<h1>This sign-in link cannot be used</h1>
<p>It has been used already, has expired (links last 24 hours) or was never valid. Ask an
administrator for a new one, or <a href="/signin">sign in</a> with your password.</p>
</div>
`);
