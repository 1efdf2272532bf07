// Classes on the sign-in path take at most 8 constructor dependencies (docs/architecture.md, "Constructor width").
// Usage: node scripts/check-constructor-width.mjs [--list]  (--list prints every class and its count).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const SIGN_IN_PATH = ['src/login', 'src/federation/sign-in', 'src/oidc/interactions', 'src/oidc/provider', 'src/account'];
const MAX = 8;

function* sourceFiles(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* sourceFiles(path);
    else if (path.endsWith('.ts') && !path.endsWith('.spec.ts') && !path.endsWith('.d.ts')) yield path;
  }
}

function constructorWidths(path) {
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const widths = [];
  const visit = (node) => {
    if (ts.isClassDeclaration(node) && node.name) {
      const ctor = node.members.find(ts.isConstructorDeclaration);
      if (ctor) widths.push({ path, name: node.name.text, width: ctor.parameters.length });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return widths;
}

const all = SIGN_IN_PATH.flatMap((dir) => [...sourceFiles(dir)].flatMap(constructorWidths));
if (process.argv.includes('--list')) for (const c of all.sort((a, b) => b.width - a.width)) console.log(`${c.width}\t${c.name}\t${c.path}`);
const tooWide = all.filter((c) => c.width > MAX);
for (const c of tooWide) console.error(`${c.path}: ${c.name} takes ${c.width} constructor dependencies (at most ${MAX})`);
process.exit(tooWide.length ? 1 : 0);
