import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type * as TypeScript from 'typescript';

/** The sandbox child's program on disk: the folder the child may read, and its entry file. */
export interface ChildProgram {
  dir: string;
  main: string;
}

const SOURCE_DIR = path.join(__dirname, 'child');
let program: ChildProgram | undefined;

/**
 * Where the child's program is. Built (`nest build`), `child/main.js` sits beside this file.
 * Run from the TypeScript source (jest, tsx), the child folder holds only `.ts`: its files are
 * compiled once into a folder of the system's temp directory named by their content, since the
 * child, under the permission model, can neither compile nor start a compiler itself.
 */
export function childProgram(): ChildProgram {
  if (program) return program;
  if (existsSync(path.join(SOURCE_DIR, 'main.js')))
    program = { dir: SOURCE_DIR, main: path.join(SOURCE_DIR, 'main.js') };
  else {
    const dir = compiled();
    program = { dir, main: path.join(dir, 'main.js') };
  }
  return program;
}

/** The child folder's TypeScript compiled to CommonJS, in a folder named by its content. */
function compiled(): string {
  const files = readdirSync(SOURCE_DIR)
    .filter((name) => name.endsWith('.ts') && !/\.spec|\.d\.ts$/.test(name))
    .sort();
  const sources = files.map((name) => readFileSync(path.join(SOURCE_DIR, name), 'utf8'));
  const hash = createHash('sha256');
  files.forEach((name, i) => hash.update(name).update('\0').update(sources[i]).update('\0'));
  const dir = path.join(os.tmpdir(), `gateway-sandbox-child-${hash.digest('hex').slice(0, 16)}`);
  // the temp directory is shared: a folder of that name that another user made is not trusted
  const ours = () => statSync(dir, { throwIfNoEntry: false })?.uid === process.getuid?.();
  if (existsSync(path.join(dir, 'main.js')) && ours()) return dir;
  // only ever reached from source, where the compiler is installed (a dev dependency)
  const ts = createRequire(__filename)('typescript') as typeof TypeScript;
  mkdirSync(os.tmpdir(), { recursive: true });
  const staging = mkdtempSync(`${dir}.`);
  files.forEach((name, i) => {
    const { outputText } = ts.transpileModule(sources[i], {
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
      fileName: name,
    });
    writeFileSync(path.join(staging, name.replace(/\.ts$/, '.js')), outputText);
  });
  try {
    renameSync(staging, dir);
  } catch {
    // another process compiled the same sources first: theirs is the same program, if ours
    if (!ours()) return staging;
    rmSync(staging, { recursive: true, force: true });
  }
  return dir;
}
