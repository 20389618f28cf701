// The docs site's fixes to typedoc's default theme for axe (nested-interactive): a <summary> is
// the button of its <details>, and a link inside a button is unreachable to assistive
// technology. typedoc puts two kinds there:
// - the permalink of a section's heading, in the summary that folds the section: removed (the
//   heading keeps its id, so links to it still land);
// - the link of a package or module in the sidebar, in the summary that folds its children: the
//   summary keeps the name as text, and the link becomes the first entry of the children, as
//   "Overview".
// The sidebar is built by typedoc's script after load, so watch for it.
// And a heading made only of code (`followup trigger`) gets an empty entry in typedoc's "On
// This Page" menu (axe: link-name): the entry takes the heading's text.

function fixSummaries(root) {
  for (const anchor of root.querySelectorAll('summary a.tsd-anchor-icon')) anchor.remove();
  for (const link of root.querySelectorAll('summary > a')) {
    const summary = link.parentElement;
    const list = summary.parentElement.querySelector(':scope > .tsd-accordion-details > ul');
    if (!list) continue;
    const name = document.createElement('span');
    name.textContent = link.textContent;
    link.replaceWith(name);
    link.textContent = 'Overview';
    link.setAttribute('aria-label', `${name.textContent}: overview`);
    const item = document.createElement('li');
    item.append(link);
    list.prepend(item);
  }
}

function nameEmptyMenuLinks(root) {
  for (const link of root.querySelectorAll('.page-menu a[href^="#"]')) {
    if (link.textContent.trim() !== '') continue;
    const heading = document.getElementById(decodeURIComponent(link.hash.slice(1)));
    if (heading) link.append(heading.textContent.trim());
  }
}

fixSummaries(document);
nameEmptyMenuLinks(document);
new MutationObserver((records) => {
  for (const record of records) {
    for (const node of record.addedNodes) {
      if (node.nodeType === Node.ELEMENT_NODE) fixSummaries(node.parentElement ?? node);
    }
  }
}).observe(document.documentElement, { childList: true, subtree: true });
