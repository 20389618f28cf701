// The menu of a table row's further actions: one primary action stays in sight (a button beside
// the menu) and the rest fold into a `<details>` disclosure, which opens and closes without a
// script and is reached with Tab like a button. Destructive actions in it (revoke, disable,
// remove) are styled `danger-outline` and lead to a confirm page (`confirm-page.ts`).

/** @internal What {@link rowMenu} writes: template source. */
export interface RowMenuOptions {
  /**
   * A template expression naming the row (`token.id`, `user.email`): the menu is announced as
   * "More actions for <that>", so that a screen reader tells one row's menu from the next.
   */
  label: string;
  /** The menu's items, as template source: forms with one button each, or links. */
  items: string;
}

/**
 * @internal The template source of a row's menu of further actions: **More** (a `<summary>`,
 * with "actions for …" for screen readers) and the items below it, in the flow of the cell, so
 * that a table scrolling sideways never clips them.
 */
export function rowMenu(options: RowMenuOptions): string {
  return `<details class="row-menu">
<summary>More<span class="visually-hidden"> actions for <%= ${options.label} %></span></summary>
<div class="row-menu-items">
${options.items}
</div>
</details>`;
}
