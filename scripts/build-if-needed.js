// `npm start` runs the built gateway; build first when dist is missing or older than a source file.
const { execSync } = require('node:child_process');
const { existsSync, readdirSync, statSync } = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const entry = path.join(root, 'dist/apps/gateway/src/main.js');

function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(full));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(full).mtimeMs);
  }
  return newest;
}

const sources = ['apps', 'libs', 'db'].map((d) => newestSource(path.join(root, d)));
if (!existsSync(entry) || statSync(entry).mtimeMs < Math.max(...sources)) {
  process.stderr.write('building the gateway (dist is missing or stale)...\n');
  execSync('npm run --silent build', { cwd: root, stdio: 'inherit' });
}
