// The import rules of packages/*/src, checked by `npm run check:imports` (dependency-cruiser), a
// task of `npm test` and so of CI. ARCHITECTURE.md ("Import rules") says why each rule is there.
// Test files (*.test.ts, *.test-d.ts) are left out: nothing imports them, so they close no cycle,
// and an integration test may reach across folders as a user of the whole package does.

const SERVER_FOLDER = '^packages/server/src/[^/]+';

/** No cycle between the server's folders. */
const serverFolderCycleRules = [
  {
    name: 'no-server-folder-cycle',
    severity: 'error',
    comment:
      "No cycle between the server's folders (plugins/, web/, stores/, …): each folder is a " +
      'layer that depends on others one way only. Files at the top of src/ (build-server.ts, ' +
      'problem-error.ts, clock.ts, …) are not a folder here.',
    scope: 'folder',
    from: { path: SERVER_FOLDER },
    to: { path: SERVER_FOLDER, circular: true },
  },
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
