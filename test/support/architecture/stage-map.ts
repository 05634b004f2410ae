/**
 * How a library shows its stages (issue #43): each stage is a folder under `root`, and a file in
 * a stage may import (relatively) only files of its own stage, of the stages it lists, and the
 * root-level files named in `shared`. Files directly in `root` (index.ts, the Nest module, its
 * options) tie the stages together and may import any of them. Each library's map is a
 * `<name>.stages.json` file (this shape) of this folder; `apps/gateway/src/architecture.spec.ts` checks them all.
 */
export interface StageMap {
  /** the library's source folder, relative to the repository: `libs/meta-tool/src` */
  root: string;
  /** stage folder → the stage folders its files may import */
  stages: Readonly<Record<string, readonly string[]>>;
  /** root-level files (`errors.ts`, `options.ts`) any stage may import */
  shared?: readonly string[];
}
