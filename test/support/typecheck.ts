import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import ts from 'typescript';

/**
 * Typechecks a TypeScript source (as a client would write it) against the packages installed
 * in this project, and returns the compiler's diagnostics as text; empty means it compiles.
 */
export async function typecheck(source: string): Promise<string[]> {
  return (await typecheckByLine(source)).map((d) => d.message);
}

/** The same, with the 1-based line of the source each diagnostic is about. */
export async function typecheckByLine(
  source: string,
): Promise<Array<{ line: number; message: string }>> {
  const root = path.resolve(__dirname, '../../.data');
  await mkdir(root, { recursive: true });
  const dir = await mkdtemp(path.join(root, 'typecheck-'));
  const file = path.join(dir, 'client.ts');
  try {
    await writeFile(file, source);
    const program = ts.createProgram([file], {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      types: [],
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    });
    return ts.getPreEmitDiagnostics(program).map((d) => ({
      line:
        d.file && d.start !== undefined
          ? d.file.getLineAndCharacterOfPosition(d.start).line + 1
          : 0,
      message: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
    }));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
