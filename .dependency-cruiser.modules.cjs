// The module graph, folder by folder (`bun run check:cycles`): no cycle between feature modules
// (src/modules/<name>), workflows, pages and infrastructure folders, even when no single file is in one.
// Two kinds of file stay out, as they sit above every folder: the files directly in src/ and plugins/
// (app and process wiring, config, AppContext, the plugin contract), and each module's routes file
// (src/modules/<name>/index.ts), which may call any module or workflow. .dependency-cruiser.cjs checks
// them file by file and keeps core code from importing a routes file.
const { options } = require('./.dependency-cruiser.cjs');

module.exports = {
  forbidden: [
    {
      name: 'no-circular-folders',
      severity: 'error',
      comment: 'Modules depend on each other one way only.',
      scope: 'folder',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    ...options,
    includeOnly: '^(src|plugins)/[^/]+/',
    exclude: { path: '^src/modules/[^/]+/index\\.ts$' },
  },
};
