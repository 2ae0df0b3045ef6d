// The module graph, folder by folder (`bun run check:cycles`): no two folders import each other,
// directly or through others (src/modules/<name>, src/routes, src/web/<part>, src/workflows,
// src/mail, ...), even when no single file is in a cycle. The files directly in src/ and plugins/
// (the wiring, config, AppContext, the plugin contracts) sit above every folder and stay out.
// .dependency-cruiser.cjs checks the layers file by file (docs/architecture.md).
const { options } = require('./.dependency-cruiser.cjs');

module.exports = {
  forbidden: [
    {
      name: 'no-circular-folders',
      severity: 'error',
      comment: 'Folders depend on each other one way only.',
      scope: 'folder',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    ...options,
    includeOnly: '^(src|plugins)/[^/]+/',
  },
};
