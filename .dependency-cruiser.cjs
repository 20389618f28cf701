// The import rules of packages/*/src, checked by `npm run check:imports` (dependency-cruiser), a
// task of `npm test` and so of CI. ARCHITECTURE.md ("Import rules") says why each rule is there.
// Test files (*.test.ts, *.test-d.ts) are left out: nothing imports them, so they close no cycle,
// and an integration test may reach across folders as a user of the whole package does.

const SERVER_FOLDER = '^packages/server/src/[^/]+';

// Known exception, TEMPORARY: outbox/outbox.ts imports delivery/webhook-endpoints.ts
// (`endpointTakesEvent`) while delivery/ imports outbox/, the outbox<->delivery folder cycle of
// issue 24, which is being ended apart from this change. The folder rule flags each folder
// dependency that lies on a cycle; these are the ones that do only because of that edge (it also
// closes stores -> outbox -> delivery -> audit -> stores). A cycle made of these edges alone is
// that one; any other cycle has an edge not listed here and fails the check. dependency-cruiser's
// baseline (known violations) does not apply to folder rules, hence the list. Delete it, and the
// rules built from it, when the cycle is gone.
const KNOWN_OUTBOX_DELIVERY_CYCLE_EDGES = {
  outbox: ['delivery'],
  delivery: ['outbox', 'audit'],
  stores: ['outbox'],
  audit: ['stores'],
};
const folderPattern = (names) => `^packages/server/src/(${names.join('|')})$`;

/** The folder-cycle rule, split so that each folder's known edges (above) are let through. */
const serverFolderCycleRules = [
  {
    name: 'no-server-folder-cycle',
    severity: 'error',
    comment:
      "No cycle between the server's folders (plugins/, web/, stores/, …): each folder is a " +
      'layer that depends on others one way only. Files at the top of src/ (build-server.ts, ' +
      'problem-error.ts, clock.ts, …) are not a folder here.',
    scope: 'folder',
    from: {
      path: SERVER_FOLDER,
      pathNot: folderPattern(Object.keys(KNOWN_OUTBOX_DELIVERY_CYCLE_EDGES)),
    },
    to: { path: SERVER_FOLDER, circular: true },
  },
  ...Object.entries(KNOWN_OUTBOX_DELIVERY_CYCLE_EDGES).map(([from, known]) => ({
    name: 'no-server-folder-cycle',
    severity: 'error',
    comment: `As no-server-folder-cycle, from ${from}/, but for the outbox<->delivery cycle (temporary).`,
    scope: 'folder',
    from: { path: folderPattern([from]) },
    to: { path: SERVER_FOLDER, pathNot: folderPattern(known), circular: true },
  })),
];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'No import cycle in packages/*/src, type-only imports included: a cycle makes the order ' +
        'of evaluation matter and the files impossible to read one at a time.',
      from: { path: '^packages/[^/]+/src/' },
      to: { circular: true },
    },
    ...serverFolderCycleRules,
    {
      name: 'sdk-internal-stays-in-sdk',
      severity: 'error',
      comment:
        "The SDK's src/internal/ is private to the SDK (its README): nothing outside " +
        'packages/sdk imports it, whatever the path.',
      from: { pathNot: '^packages/sdk/' },
      to: { path: '(^|/)packages/sdk/src/internal/|@followup/sdk/.*internal' },
    },
    {
      name: 'stores-below-surfaces',
      severity: 'error',
      comment:
        'Stores hold SQL and are called by the surfaces (routes, pages, commands, plugins); a ' +
        'store that imports a surface turns the layering upside down.',
      from: { path: '^packages/server/src/stores/' },
      to: { path: '^packages/server/src/(routes|web|cli|plugins)/' },
    },
  ],
  options: {
    includeOnly: '^packages/[^/]+/src/',
    exclude: { path: ['(^|/)(node_modules|dist)/', '\\.test(-d)?\\.ts$'] },
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.d.ts', '.js', '.mjs'],
    },
  },
};
