// The workflow modules are preloaded once per reused V8 context (workflow-source.ts): a value a
// module keeps at its top level is shared by every workflow the worker runs, and one run's state would reach
// another's. They may keep constants, proxies and definitions there, never a variable or a new container.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const WORKFLOWS = path.resolve(__dirname, '../../../libs/engine/src/workflows');

function workflowModules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return workflowModules(file);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [file] : [];
  });
}

/** Top-level declarations that hold state: `let`/`var`, or a `const` made with `new` (a Map, a Set, a class). */
function stateKept(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  return source.statements.flatMap((statement) => {
    if (!ts.isVariableStatement(statement)) return [];
    const { flags, declarations } = statement.declarationList;
    const constant = (flags & ts.NodeFlags.Const) !== 0;
    return declarations
      .filter((declaration) => !constant || (declaration.initializer && ts.isNewExpression(declaration.initializer)))
      .map((declaration) => `${path.relative(WORKFLOWS, file)}: ${declaration.name.getText(source)}`);
  });
}

describe('workflow modules', () => {
  it('keep no state at their top level, where every workflow of a worker would share it', () => {
    const modules = workflowModules(WORKFLOWS);
    expect(modules.length).toBeGreaterThan(20);
    expect(modules.flatMap(stateKept)).toEqual([]);
  });
});
