import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { defineConfig, type Plugin } from 'vitest/config';

// Writes sw.js with the list of built files and a version derived from them, so a new build installs a new worker
// (and the page offers "update available").
function serviceWorker(): Plugin {
  return {
    name: 'aw-service-worker',
    apply: 'build',
    generateBundle(_options, bundle) {
      const files = Object.keys(bundle).filter((f) => f.startsWith('assets/')).sort().map((f) => '/' + f);
      const publicFiles = ['/manifest.webmanifest', '/icon.svg', '/icon-192.png', '/icon-512.png'];
      const template = readFileSync(new URL('./sw/sw.js', import.meta.url), 'utf8');
      // the worker's own code counts too: a change of it alone is a new version (a new cache, "update available")
      const version = createHash('sha256').update(files.join('\n')).update(template).digest('hex').slice(0, 12);
      const src = template
        .replace('__VERSION__', version)
        .replace('__ASSETS__', JSON.stringify([...files, ...publicFiles]));
      this.emitFile({ type: 'asset', fileName: 'sw.js', source: src });
    },
  };
}

// Everything is bundled (no CDN); the page has no inline script (the server's CSP forbids it).
export default defineConfig({
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  plugins: [serviceWorker()],
  // the highlighting worker (src/hl-worker.ts) is a module worker
  worker: { format: 'es' },
  resolve: { alias: { react: 'preact/compat', 'react-dom': 'preact/compat' } },
  build: {
    outDir: 'dist',
    assetsDir: 'assets',
    target: 'es2022',
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
  test: { environment: 'node', include: ['src/**/*.test.ts'] },
});
