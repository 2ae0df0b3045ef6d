// The module graph, file by file (`bun run check:cycles`): the layers of docs/architecture.md.
// Type-only imports count: a cycle of types is still a cycle a reader has to untangle.
// .dependency-cruiser.modules.cjs checks the same graph folder by folder.
//
//   src/*.ts (wiring)  ->  edges: src/routes, src/web, src/scheduler  ->  src/workflows
//   ->  src/modules  ->  src/mail  ->  src/lib, src/db          plugins/ -> their contract, lib, db

/** The edges: what HTTP requests (API routes, pages) and clock ticks (jobs) enter through. */
const EDGES = '^src/(routes|web|scheduler)/';

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
      name: 'edges-are-the-top',
      severity: 'error',
      comment: 'Routes, pages and jobs are mounted by the wiring in src/*.ts; nothing below them imports one.',
      from: { path: '^(src/(workflows|modules|mail|lib|db)|plugins)/' },
      to: { path: EDGES },
    },
    {
      name: 'edges-stand-side-by-side',
      severity: 'error',
      comment: 'API routes, pages and jobs share what they need through workflows and modules, never each other.',
      from: { path: '^src/(routes|web|scheduler)/' },
      to: { path: EDGES, pathNot: '^src/$1/' },
    },
    {
      name: 'workflows-sit-above-modules',
      severity: 'error',
      comment: 'A workflow joins modules in one transaction; modules and infrastructure never call one.',
      from: { path: '^(src/(modules|mail|lib|db)|plugins)/' },
      to: { path: '^src/workflows/' },
    },
    {
      name: 'modules-sit-above-infrastructure',
      severity: 'error',
      comment: 'src/mail, src/lib and src/db know no feature module.',
      from: { path: '^src/(mail|lib|db)/' },
      to: { path: '^src/modules/' },
    },
    {
      name: 'mail-sits-above-lib-and-db',
      severity: 'error',
      comment: 'src/lib and src/db are the floor: small, dependency-free helpers and the database.',
      from: { path: '^src/(lib|db)/' },
      to: { path: '^src/mail/' },
    },
    {
      name: 'plugins-build-on-the-contract',
      severity: 'error',
      comment: 'A plugin knows its contract (plugins/*.ts), src/lib and src/db; the core knows it only through that contract.',
      from: { path: '^plugins/' },
      to: { path: '^src/(routes|modules|workflows|web|scheduler|mail)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    moduleSystems: ['es6'],
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
