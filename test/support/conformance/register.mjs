// Loaded with `node --import` before @modelcontextprotocol/conformance 0.1.16, which imports
// `globSync` from 'fs' (Node 22+). On Node 20 its 'fs' import resolves to fs-node20.mjs.
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);
