#!/usr/bin/env node
// Reports circular imports among the TypeScript files of a source tree (default: src/) and exits 1 if
// there is any. A cycle makes module load order decide whether a value is still undefined when it is
// used (a class in a decorator, a constant at top level), and it blurs the direction of dependencies
// that docs/architecture.md fixes. Only relative imports and re-exports count; `import type` and
// `export type` vanish at compile time and cannot form a cycle at run time, so they are ignored.
// Usage: node scripts/check-import-cycles.mjs [directory]
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const root = resolve(process.argv[2] ?? new URL('../src', import.meta.url).pathname);

function collect(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...collect(path));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** `./x.js` in source means `./x.ts` (NodeNext resolution); `./dir` may mean `./dir/index.ts`. */
function resolveImport(from, specifier) {
  const base = resolve(dirname(from), specifier);
  const candidates = [base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts')];
  return candidates.find((path) => existsSync(path) && statSync(path).isFile());
}

/** The files `file` loads at run time: relative imports and re-exports that are not type-only. */
function runtimeImports(file) {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const targets = [];
  for (const statement of source.statements) {
    let specifier;
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      if (clause?.isTypeOnly) continue;
      // `import { type A, type B } from` is also erased entirely.
      const named = clause?.namedBindings;
      if (clause && !clause.name && named && ts.isNamedImports(named) && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly)) continue;
      specifier = statement.moduleSpecifier;
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier) {
      if (statement.isTypeOnly) continue;
      const named = statement.exportClause;
      if (named && ts.isNamedExports(named) && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly)) continue;
      specifier = statement.moduleSpecifier;
    }
    if (specifier && ts.isStringLiteral(specifier) && specifier.text.startsWith('.')) {
      const target = resolveImport(file, specifier.text);
      if (target) targets.push(target);
    }
  }
  return targets;
}

const files = collect(root).sort();
const graph = new Map(files.map((file) => [file, runtimeImports(file)]));

// Tarjan's strongly connected components: every component of more than one file, or a file importing
// itself, is a cycle.
const index = new Map();
const low = new Map();
const stack = [];
const onStack = new Set();
const cycles = [];
let counter = 0;
function visit(file) {
  index.set(file, counter);
  low.set(file, counter);
  counter += 1;
  stack.push(file);
  onStack.add(file);
  for (const next of graph.get(file) ?? []) {
    if (!index.has(next)) {
      visit(next);
      low.set(file, Math.min(low.get(file), low.get(next)));
    } else if (onStack.has(next)) {
      low.set(file, Math.min(low.get(file), index.get(next)));
    }
  }
  if (low.get(file) === index.get(file)) {
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (graph.get(file) ?? []).includes(file)) cycles.push(component.sort());
  }
}
for (const file of files) if (!index.has(file)) visit(file);

if (cycles.length === 0) {
  console.log(`no import cycles among ${files.length} files under ${relative(process.cwd(), root) || '.'}`);
} else {
  for (const component of cycles) {
    console.error(`import cycle among ${component.length} file(s):`);
    for (const file of component) {
      const inCycle = (graph.get(file) ?? []).filter((next) => component.includes(next)).map((next) => relative(root, next));
      console.error(`  ${relative(root, file)} -> ${inCycle.join(', ')}`);
    }
  }
  process.exitCode = 1;
}
