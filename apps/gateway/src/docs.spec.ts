import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { ERRORS } from './errors/error-codes';

/** The docs checked against the code: links resolve, every setting and error code is listed. */
const ROOT = path.resolve(__dirname, '../../..');

function files(dir: string, keep: (file: string) => boolean): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory())
      return entry.name === 'node_modules' || entry.name === 'dist' ? [] : files(rel, keep);
    return keep(rel) ? [rel] : [];
  });
}

const read = (rel: string) => readFileSync(path.join(ROOT, rel), 'utf8');
const withoutCode = (text: string) => text.replace(/```[\s\S]*?```/g, '');

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
function anchors(markdown: string): Set<string> {
  const seen = new Set<string>();
  for (const match of withoutCode(markdown).matchAll(/^#{1,6} +(.+)$/gm)) {
    const slug = match[1]
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-');
    seen.add(slug);
  }
  return seen;
}

/** Relative links of a page that point nowhere (a missing file, or a missing heading). */
function brokenLinks(page: string): string[] {
  const broken: string[] = [];
  for (const match of withoutCode(read(page)).matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = match[1];
    if (/^[a-z]+:/i.test(target)) continue;
    const [file, anchor] = target.split('#');
    const resolved = file ? path.join(path.dirname(page), file) : page;
    let exists = false;
    try {
      exists = statSync(path.join(ROOT, resolved)) !== undefined;
    } catch {
      exists = false;
    }
    if (!exists) broken.push(`${page}: ${target}`);
    else if (anchor && resolved.endsWith('.md') && !anchors(read(resolved)).has(anchor))
      broken.push(`${page}: ${target} (no such heading)`);
  }
  return broken;
}

/** Every environment variable the code reads (the gateway's settings, the scripts). */
function settingsInCode(): Set<string> {
  const code = ['apps', 'libs', 'db', 'scripts'].flatMap((dir) =>
    files(dir, (f) => /\.(ts|js|mjs)$/.test(f) && !/\.(spec|integration-spec)\.ts$/.test(f)),
  );
  const names = new Set<string>();
  const patterns = [
    /process\.env\.([A-Z][A-Z0-9_]+)/g,
    /\benv\.([A-Z][A-Z0-9_]+)/g,
    /\benv\[['"]([A-Z][A-Z0-9_]+)['"]\]/g,
    /\(\s*env,\s*'([A-Z][A-Z0-9_]+)'/g,
  ];
  for (const file of code)
    for (const pattern of patterns)
      for (const match of read(file).matchAll(pattern)) names.add(match[1]);
  return names;
}

/** The variables a settings page lists: backticked names in the first cell of a table row. */
function settingsInDocs(): Set<string> {
  const names = new Set<string>();
  for (const page of ['docs/configuration.md', 'docs/configuration-extra.md'])
    for (const row of read(page).matchAll(/^\| *([^|]+)\|/gm))
      for (const name of row[1].matchAll(/`([A-Z][A-Z0-9_]+)`/g)) names.add(name[1]);
  return names;
}

/** Rows of the error table in docs/http-api.md: code, HTTP, JSON-RPC. */
function documentedErrors(): Map<string, [string, string]> {
  const section = read('docs/http-api.md').split('## Error codes')[1] ?? '';
  const rows = new Map<string, [string, string]>();
  for (const match of section.matchAll(/^\| `([A-Z0-9_]+)` *\| *([^|]+?) *\| *([^|]+?) *\|/gm))
    rows.set(match[1], [match[2], match[3]]);
  return rows;
}

describe('docs', () => {
  it('every relative link in the README and under docs/ resolves, headings included', () => {
    const pages = ['README.md', ...files('docs', (f) => f.endsWith('.md'))];
    expect(pages.length).toBeGreaterThan(20);
    expect(pages.flatMap(brokenLinks)).toEqual([]);
  });

  it('configuration lists every variable the code reads, and none it does not', () => {
    const code = settingsInCode();
    const docs = settingsInDocs();
    expect(code.has('DATABASE_URL')).toBe(true);
    expect([...code].filter((name) => !docs.has(name)).sort()).toEqual([]);
    expect([...docs].filter((name) => !code.has(name)).sort()).toEqual([]);
  });

  it("the HTTP API page's error table is the error mapping, code by code", () => {
    const documented = documentedErrors();
    const expected = Object.entries(ERRORS).map(([code, spec]) => [
      code,
      [spec.jsonRpc === null ? '200 (`is_error`)' : String(spec.http), String(spec.jsonRpc ?? '')],
    ]);
    const actual = Object.keys(ERRORS).map((code) => {
      const row = documented.get(code);
      return [code, row ? [row[0], row[1].startsWith('-') ? row[1] : ''] : undefined];
    });
    expect(actual).toEqual(expected);
    expect([...documented.keys()].filter((code) => !(code in ERRORS))).toEqual([]);
  });

  it('decision records are numbered once and every one is in both indexes', () => {
    const records = readdirSync(path.join(ROOT, 'docs/decisions')).filter((f) =>
      /^\d{4}-.+\.md$/.test(f),
    );
    const numbers = records.map((f) => f.slice(0, 4));
    expect(numbers.filter((n, i) => numbers.indexOf(n) !== i)).toEqual([]);
    const index = read('docs/decisions/README.md');
    const docsIndex = read('docs/README.md');
    const readme = read('README.md');
    for (const record of records) {
      expect([record, index.includes(`(${record})`)]).toEqual([record, true]);
      expect([record, docsIndex.includes(`decisions/${record}`)]).toEqual([record, true]);
      expect([record, readme.includes(`docs/decisions/${record}`)]).toEqual([record, true]);
    }
  });
});
