// `npm start` runs the built gateway and serves the built console, `npm run meta-tool` the
// built CLI; build each one that is missing or older than its sources.
const { execSync } = require('node:child_process');
const { existsSync, readdirSync, statSync } = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
// the app and the CLIs Nest wires (its DI needs tsc's decorator metadata, tsx emits none)
const entries = ['main.js', 'cli/meta-tool.js'].map((f) =>
  path.join(root, 'dist/apps/gateway/src', f),
);
const consoleRoot = path.join(root, 'apps/console');
const consoleEntry = path.join(consoleRoot, 'dist/index.html');
const viewRoot = path.join(root, 'apps/chart-view');
const viewEntry = path.join(viewRoot, 'dist/view.js');

function newestSource(dir, extensions, skip = new Set()) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!skip.has(entry.name)) newest = Math.max(newest, newestSource(full, extensions, skip));
    } else if (extensions.some((ext) => entry.name.endsWith(ext))) {
      newest = Math.max(newest, statSync(full).mtimeMs);
    }
  }
  return newest;
}

const stale = (output, newest) => !existsSync(output) || statSync(output).mtimeMs < newest;

const gatewaySources = ['apps/gateway', 'libs', 'db'].map((d) =>
  newestSource(path.join(root, d), ['.ts']),
);
const consoleSources = newestSource(
  consoleRoot,
  ['.ts', '.tsx', '.css', '.html', '.mjs', '.json'],
  new Set(['dist', 'node_modules']),
);

// `--console-only` (the browser tests' set-up): the console and the chart View, not the gateway
const newestGateway = Math.max(...gatewaySources);
if (!process.argv.includes('--console-only') && entries.some((e) => stale(e, newestGateway))) {
  process.stderr.write('building the gateway and the console (dist is missing or stale)...\n');
  execSync('npm run --silent build', { cwd: root, stdio: 'inherit' });
} else {
  if (stale(consoleEntry, consoleSources)) {
    process.stderr.write('building the console (apps/console/dist is missing or stale)...\n');
    execSync('npm run --silent build:console', { cwd: root, stdio: 'inherit' });
  }
  // the MCP Apps chart View, with the chart modules it bundles
  const viewSources = Math.max(
    newestSource(viewRoot, ['.ts', '.mjs', '.json'], new Set(['dist', 'node_modules'])),
    newestSource(path.join(root, 'libs/templates/src'), ['chart.ts', 'chart-spec.ts']),
  );
  if (stale(viewEntry, viewSources)) {
    process.stderr.write('building the chart View (apps/chart-view/dist is missing or stale)...\n');
    execSync('npm run --silent build:chart-view', { cwd: root, stdio: 'inherit' });
  }
}
