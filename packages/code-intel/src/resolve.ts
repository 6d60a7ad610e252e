/**
 * From an import as written to the workspace files it names. Relative imports always resolve
 * when the file exists; Python's absolute imports resolve when the package lies in the workspace
 * (searched from the importing file's folder up to the root); packages from registries never do.
 */
import { posix } from 'node:path';
import type { ImportRef, Language } from './analyze/index.js';

const SCRIPT_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'];
// ESM TypeScript imports name the emitted file: './retry.js' means retry.ts.
const EMITTED_TO_SOURCE: Record<string, string[]> = { '.js': ['.ts', '.tsx'], '.jsx': ['.tsx'], '.mjs': ['.mts'], '.cjs': ['.cts'] };

const inside = (file: string) => file !== '..' && !file.startsWith('../') && !posix.isAbsolute(file);

function resolveScript(from: string, specifier: string, files: ReadonlySet<string>): string[] {
  if (!specifier.startsWith('.') && !specifier.startsWith('/')) return [];
  const target = specifier.startsWith('/') ? posix.normalize(specifier.slice(1)) : posix.normalize(posix.join(posix.dirname(from), specifier));
  if (!inside(target)) return [];
  const extension = posix.extname(target);
  const stem = target.slice(0, target.length - extension.length);
  const candidates = [
    target,
    ...(EMITTED_TO_SOURCE[extension] ?? []).map((ext) => stem + ext),
    ...SCRIPT_EXTENSIONS.map((ext) => target + ext),
    ...SCRIPT_EXTENSIONS.map((ext) => `${target}/index${ext}`),
  ];
  const hit = candidates.find((candidate) => files.has(candidate));
  return hit ? [hit] : [];
}

function pythonModule(base: string, dotted: string, files: ReadonlySet<string>): string | undefined {
  const parts = dotted ? dotted.split('.') : [];
  const candidates = dotted ? [`${posix.join(base, ...parts)}.py`, posix.join(base, ...parts, '__init__.py')] : [posix.join(base, '__init__.py')];
  return candidates.map((candidate) => posix.normalize(candidate)).find((candidate) => inside(candidate) && files.has(candidate));
}

function resolvePython(from: string, ref: ImportRef, files: ReadonlySet<string>): string[] {
  const level = /^\.*/.exec(ref.specifier)?.[0].length ?? 0;
  const dotted = ref.specifier.slice(level);
  let bases: string[];
  if (level > 0) {
    let base = posix.dirname(from);
    for (let i = 1; i < level; i += 1) base = posix.dirname(base);
    bases = [base];
  } else {
    // Nearest first: the importing file's folder, then each folder above it up to the root.
    bases = [];
    for (let dir = posix.dirname(from); ; dir = posix.dirname(dir)) {
      bases.push(dir);
      if (dir === '.' || dir === '') break;
    }
  }
  for (const base of bases) {
    const found = new Set<string>();
    // `from pkg import mod` may name submodules rather than attributes.
    for (const name of ref.names) {
      const submodule = pythonModule(base, dotted ? `${dotted}.${name}` : name, files);
      if (submodule) found.add(submodule);
    }
    const module = pythonModule(base, dotted, files);
    if (module && (dotted || found.size === 0)) found.add(module);
    if (found.size > 0) return [...found];
  }
  return [];
}

/** The workspace files an import names (empty when it names a package from outside). */
export function resolveImport(from: string, language: Language, ref: ImportRef, files: ReadonlySet<string>): string[] {
  return language === 'python' ? resolvePython(from, ref, files) : resolveScript(from, ref.specifier, files);
}
