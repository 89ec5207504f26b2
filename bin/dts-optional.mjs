// The package's declarations (dist/*.d.ts) under its users' strictest settings. readpast is compiled without
// `exactOptionalPropertyTypes`, where an optional property `url?: string` takes `undefined` too; a project with
// that flag (`tsc --init`'s default since TypeScript 5.9) reads the same declaration as "absent or a string",
// and `openReadpast({ url: process.env.READPAST_DATABASE_URL })` no longer compiles. So every optional property
// of the emitted declarations says what it means in readpast's own compilation: `url?: string | undefined`.
// Run by tsdown after each build (tsdown.config.ts); the edit is insertions only, the rest of the text as emitted.
import ts from 'typescript';

/** Whether a type node already takes undefined: `undefined`, `any`, `unknown`, or a union with one of them. */
function takesUndefined(type) {
  if (ts.isParenthesizedTypeNode(type)) return takesUndefined(type.type);
  if (ts.isUnionTypeNode(type)) return type.types.some(takesUndefined);
  return [ts.SyntaxKind.UndefinedKeyword, ts.SyntaxKind.AnyKeyword, ts.SyntaxKind.UnknownKeyword].includes(type.kind);
}

/** Types that a following `| undefined` would bind into (`() => void | undefined`): parenthesised first. */
const needsParens = (type) => ts.isFunctionTypeNode(type) || ts.isConstructorTypeNode(type) || ts.isConditionalTypeNode(type);

/**
 * `text` (a .d.ts) with `| undefined` added to every optional property (`name?: T`) whose type does not take
 * undefined already, in interfaces, type literals and classes alike. Returns the new text and how many changed.
 */
export function optionalsTakeUndefined(text, fileName = 'index.d.ts') {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  /** [position, text to insert] */
  const inserts = [];
  const visit = (node) => {
    if ((ts.isPropertySignature(node) || ts.isPropertyDeclaration(node)) && node.questionToken && node.type && !takesUndefined(node.type)) {
      const parens = needsParens(node.type);
      if (parens) inserts.push([node.type.getStart(source), '(']);
      inserts.push([node.type.end, parens ? ') | undefined' : ' | undefined']);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  // from the end, so earlier positions stay valid; at one position, the inner type's insert (found later) first
  const ordered = inserts.map((ins, i) => [...ins, i]).sort((a, b) => b[0] - a[0] || b[2] - a[2]);
  let out = text;
  for (const [at, insert] of ordered) out = out.slice(0, at) + insert + out.slice(at);
  return { text: out, changed: inserts.filter(([, t]) => t !== '(').length };
}
