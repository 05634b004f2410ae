import type * as QuickJSPackage from 'quickjs-emscripten';
import type { QuickJSWASMModule } from 'quickjs-emscripten';
import type { ChildMessage } from '../child-messages';

// After node and this program's file: the absolute path of the quickjs-emscripten package,
// given by the parent so the child resolves no module of its own, and the per-run memory
// limit in bytes.
const [, , enginePath, runLimitArg] = process.argv;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const quickjs = require(enginePath) as typeof QuickJSPackage;
const { newQuickJSWASMModule, newVariant, RELEASE_SYNC } = quickjs;

// The engine's WebAssembly memory, bounded: its own 16 MB (the module's initial memory: its
// data, stack and first heap) plus the per-run limit. QuickJS's own limit does not add
// allocations up (quickjs-emscripten#271: under Emscripten it cannot size what it frees), and
// its interrupt check comes too rarely to see a loop of typed arrays, which grew a child past
// 1 GB. Capped here, the allocation past the cap fails inside the engine ("out of memory") and
// the run ends with stage "memory"; the child, whose memory never shrinks, is then replaced.
// Tearing a run down at the cap may fail too: that child is replaced as well.
const PAGE = 65536;
// the lib this code is checked against (ES2022) has no WebAssembly types; Node has the value
const Wasm = (globalThis as unknown as { WebAssembly: WasmGlobal }).WebAssembly;
interface WasmGlobal {
  Memory: new (descriptor: { initial: number; maximum: number }) => {
    readonly buffer: ArrayBuffer;
  };
}
const ENGINE_OWN_BYTES = 16 * 1048576;
const runLimitBytes = Number(runLimitArg) > 0 ? Number(runLimitArg) : 64 * 1048576;
const engineMemory = new Wasm.Memory({
  initial: ENGINE_OWN_BYTES / PAGE,
  maximum: Math.ceil((ENGINE_OWN_BYTES + runLimitBytes) / PAGE),
});
const getQuickJS = () =>
  newQuickJSWASMModule(newVariant(RELEASE_SYNC, { wasmMemory: engineMemory }));

let QuickJS: QuickJSWASMModule | undefined;
let engineBytesAtLoad = 0;

/** The size of the engine's WebAssembly memory (the module's view is replaced when it grows). */
const engineBytes = (): number => engineMemory.buffer.byteLength;

/** How much the engine's memory grew since this child loaded it (it never shrinks). */
export const engineGrowth = (): number => engineBytes() - engineBytesAtLoad;

/** Loads the engine once, remembering its memory at load. */
export async function loadEngine(): Promise<void> {
  QuickJS = await getQuickJS();
  engineBytesAtLoad = engineBytes();
}

/** The loaded engine; a job never comes before `ready`, so it is there. */
export function engine(): QuickJSWASMModule {
  if (!QuickJS) throw new Error('the engine is not loaded yet');
  return QuickJS;
}

/** Sends a message to the parent, then `then`; a parent that is gone is not an error here. */
export const send = (message: ChildMessage, then?: () => void): void => {
  try {
    if (process.connected && process.send)
      return void process.send(message, undefined, undefined, then);
  } catch {
    // the parent is gone or the message could not be sent: nothing more to do here
  }
  if (then) then();
};

/** `value` as text, cut to `max` characters with an ellipsis. */
export const str = (value: unknown, max: number): string => {
  const text = typeof value === 'string' ? value : String(value);
  return text.length > max ? text.slice(0, max - 1) + '…' : text;
};

/** What an unexpected error says: its message, or the value itself. */
export const errorMessage = (err: unknown): unknown =>
  err && (err as { message?: unknown }).message ? (err as { message: unknown }).message : err;
