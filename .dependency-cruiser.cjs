/**
 * Folder-level architecture rules, checked in `npm test` (`npm run lint:deps`).
 * Folders under src/ are the rooms of ARCHITECTURE.md; an import cycle between two of them means one room
 * reaches into another's job, so it fails the build.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-folder-cycles',
      comment: 'Folders under src/ (and sandbox/) must not import each other in a cycle.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^(src|sandbox)/' },
      to: { circular: true },
    },
    {
      name: 'no-file-cycles',
      comment: 'No module imports itself through a chain of imports.',
      severity: 'error',
      from: { path: '^(src|sandbox)/' },
      to: { circular: true },
    },
    {
      name: 'library-not-cli',
      comment: 'The library never depends on the CLI: the CLI is a thin shell over exported functions.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/cli/' },
      to: { path: '^src/cli/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
