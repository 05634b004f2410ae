// The MCP Apps View of report tools: one IIFE script, built to apps/chart-view/dist/view.js.
// The gateway serves it inline in ui://report-tool-gateway/chart-view-v1.html (issue #33).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    lib: {
      entry: fileURLToPath(new URL('src/main.ts', import.meta.url)),
      formats: ['iife'],
      name: 'ReportChartView',
      fileName: () => 'view.js',
    },
  },
  logLevel: 'warn',
});
