import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { strongEtag, type Representation } from '../../infrastructure/http/representation.ts';

/** The console's own files: ES modules, a style sheet and an icon, served as they are in the repository. */
export const appDirectory = fileURLToPath(new URL('./app/', import.meta.url));

const require = createRequire(import.meta.url);

/**
 * The libraries the console imports, from their npm packages, by the path its modules import them under
 * (`./vendor/preact.js`; `app/vendor/*.d.ts` give them their types). A module of theirs that imports
 * another by its package name gets that import pointed at the served file, since a browser resolves no
 * package names (an import map could, but it would have to be an inline script).
 */
const vendorModules: Record<string, { file: string; imports?: Record<string, string> }> = {
  // preact's exports give its ES modules; htm's give CommonJS to require, its ES module sits beside it.
  'vendor/preact.js': { file: require.resolve('preact') },
  'vendor/hooks.js': { file: require.resolve('preact/hooks'), imports: { preact: './preact.js' } },
  'vendor/htm.js': { file: join(dirname(require.resolve('htm')), 'htm.module.js') },
};

const contentTypes: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

const extensionOf = (path: string) => path.slice(path.lastIndexOf('.'));

/** A specifier that is neither relative nor absolute: a package name, which a browser cannot resolve. */
const barePackageImport = /\b(?:from|import)\s*(["'])(?![./])([^"']+)\1/;

/** Points `from "preact"` at the served file; drops the source map comment (the maps are not served). */
export const rewriteVendorModule = (source: string, imports: Record<string, string> = {}): string => {
  let rewritten = source.replace(/\n?\/\/# sourceMappingURL=\S+\s*$/, '\n');
  for (const [name, path] of Object.entries(imports)) {
    const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    rewritten = rewritten.replace(
      new RegExp(`\\b(from|import)(\\s*)(["'])${escaped}\\3`, 'g'),
      (_match, keyword: string, space: string) => `${keyword}${space}"${path}"`,
    );
  }
  const bare = barePackageImport.exec(rewritten);
  if (bare) throw new Error(`a console module still imports the package "${bare[2]}" by name`);
  return rewritten;
};

const appFiles = (directory: string): string[] =>
  readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return appFiles(path);
    return extensionOf(entry.name) in contentTypes && !entry.name.endsWith('.d.ts') ? [path] : [];
  });

export type ConsoleAssets = {
  /** A hash of every file together: part of every asset's URL, so a URL never names other bytes. */
  version: string;
  /** By path below `/console/assets/{version}/`: `main.js`, `views/orders.js`, `vendor/preact.js`. */
  files: ReadonlyMap<string, Representation>;
};

/** Cached for a year and never revalidated: a changed file is a new version, so a new URL. */
export const immutableCacheControl = 'public, max-age=31536000, immutable';

/**
 * Reads the console's files once, at start: the app's modules as they are, the libraries from
 * node_modules. No build step: the bytes in the repository are the bytes the browser runs.
 */
export const loadConsoleAssets = (directory: string = appDirectory): ConsoleAssets => {
  const sources = new Map<string, Buffer>();
  for (const file of appFiles(directory)) {
    sources.set(relative(directory, file).split(sep).join('/'), readFileSync(file));
  }
  for (const [path, { file, imports }] of Object.entries(vendorModules)) {
    sources.set(path, Buffer.from(rewriteVendorModule(readFileSync(file, 'utf8'), imports)));
  }
  const hash = createHash('sha256');
  for (const path of [...sources.keys()].sort()) hash.update(path).update('\0').update(sources.get(path)!);
  const version = hash.digest('hex').slice(0, 16);
  const files = new Map<string, Representation>();
  for (const [path, body] of sources) {
    files.set(path, {
      body,
      etag: strongEtag(body),
      contentType: contentTypes[extensionOf(path)]!,
      cacheControl: immutableCacheControl,
    });
  }
  return { version, files };
};
