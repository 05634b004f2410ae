// ESM resolve hook: the conformance package's 'fs' import gets the Node 20 shim; nothing else
// changes. On a Node with fs.globSync the hook steps aside.
import * as fs from 'node:fs';

const shim = new URL('./fs-node20.mjs', import.meta.url).href;

export async function resolve(specifier, context, next) {
  const fromConformance = context.parentURL?.includes('/@modelcontextprotocol/conformance/');
  if (fromConformance && (specifier === 'fs' || specifier === 'node:fs') && !fs.globSync)
    return { url: shim, shortCircuit: true };
  return next(specifier, context);
}
