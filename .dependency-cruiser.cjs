// The module graph, file by file (`bun run check:cycles`). Type-only imports count: a cycle of
// types is still a cycle a reader has to untangle. .dependency-cruiser.modules.cjs checks the same
// graph folder by folder.

/** Code below the HTTP edge: feature modules, workflows, infrastructure and billing plugins. */
const CORE = '^(src/(modules|workflows|lib|db|mail|scheduler)|plugins)/';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No file imports itself through others (type-only imports included).',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-web-below-the-edge',
      severity: 'error',
      comment: 'Pages (src/web) build on modules and workflows, never the other way round.',
      from: { path: CORE },
      to: { path: '^src/web/' },
    },
    {
      name: 'routes-are-the-edge',
      severity: 'error',
      comment:
        "A module's routes file (index.ts) is mounted by src/app.ts and used by pages, never imported " +
        'by core code: the folder check counts it above the modules (.dependency-cruiser.modules.cjs).',
      from: { path: CORE },
      to: { path: '^src/modules/[^/]+/index\\.ts$' },
    },
    {
      name: 'workflows-sit-above-modules',
      severity: 'error',
      comment: 'A workflow joins modules in one transaction; modules and infrastructure never call one.',
      from: { path: '^src/(modules|lib|db|mail)/', pathNot: '^src/modules/[^/]+/index\\.ts$' },
      to: { path: '^src/workflows/' },
    },
    {
      name: 'plugins-build-on-the-contract',
      severity: 'error',
      comment: 'A billing plugin knows plugins/billing.ts, src/lib and src/db; the core knows it only through that contract.',
      from: { path: '^plugins/' },
      to: { path: '^src/(modules|workflows|web|scheduler)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    moduleSystems: ['es6'],
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
