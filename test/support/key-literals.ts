import ts from 'typescript';

/**
 * Reads the literals of a source file (strings, template fragments, regular expressions) with
 * the TypeScript parser, so that comments, which name key formats to explain them, are not
 * read: what test/platform/layers.test.ts needs to hold every key format to shared/db/keys.ts.
 */

/** A literal of a source file that looks like a key: where it is and what it says. */
export interface KeyLiteral {
  file: string;
  line: number;
  text: string;
}

/** The attributes that hold a key of the table or of GSI1. */
const keyAttributes = new Set(['PK', 'SK', 'GSI1PK', 'GSI1SK']);

/** A key attribute given a value in the text of a file (`PK:`, `'GSI1SK':`). */
const keyAttributePattern = new RegExp(`\\b(${[...keyAttributes].join('|')})['"]?\\s*:`);

/** Every literal of `source` (its value; a regular expression's source) with the node that holds it. */
const literalsOf = (file: string, source: string): Array<{ node: ts.Node; text: string }> => {
  const found: Array<{ node: ts.Node; text: string }> = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isTemplateLiteralToken(node) || ts.isRegularExpressionLiteral(node)) found.push({ node, text: node.text });
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true));
  return found;
};

/** The expression a literal is part of: the whole template for a template's fragment, else the literal. */
const expressionOf = (node: ts.Node): ts.Node =>
  ts.isTemplateHead(node) ? node.parent : ts.isTemplateMiddle(node) || ts.isTemplateTail(node) ? node.parent.parent : node;

/** Whether `node` is the value given to a key attribute in an object literal. */
const givenToKeyAttribute = (node: ts.Node): boolean => {
  const expression = expressionOf(node);
  const holder = expression.parent;
  return (
    ts.isPropertyAssignment(holder) &&
    holder.initializer === expression &&
    (ts.isIdentifier(holder.name) || ts.isStringLiteral(holder.name)) &&
    keyAttributes.has(holder.name.text)
  );
};

/**
 * The key prefixes that shared/db/keys.ts defines: every `WORD#` (capitals, digits and `_`
 * before the separator) that its literals hold, sorted. A prefix added there is found here.
 */
export const keyPrefixesOf = (keysSource: string): string[] =>
  [...new Set(literalsOf('keys.ts', keysSource).flatMap(({ text }) => [...text.matchAll(/(?<![A-Za-z0-9_])([A-Z][A-Z0-9_]*#)/g)].map((match) => match[1]!)))].sort();

/**
 * The literals of `source` that build or recognise a key by hand: one that holds a key prefix
 * (at its start or after a character that is not a letter, digit or `_`), a regular expression
 * that names a prefix's word before a `#`, and any literal given to a key attribute
 * (`PK: 'SIM#1'`, `GSI1SK: 'SIM'`).
 */
export const keyLiteralsIn = (file: string, source: string, prefixes: readonly string[]): KeyLiteral[] => {
  const holdsPrefix = new RegExp(`(?<![A-Za-z0-9_])(${prefixes.join('|')})`);
  // A regular expression may name a prefix's word and its `#` apart: /^(SIMLI|SIMLT)#/.
  const namesPrefix = new RegExp(`(?<![A-Za-z0-9_])(${prefixes.map((prefix) => prefix.slice(0, -1)).join('|')})(?![A-Za-z0-9_]).*#`);
  // Only a file whose text could hold such a literal is parsed (most hold none: about 4x faster).
  if (!holdsPrefix.test(source) && !namesPrefix.test(source) && !keyAttributePattern.test(source)) return [];
  return literalsOf(file, source)
    .filter(({ node, text }) => holdsPrefix.test(text) || (ts.isRegularExpressionLiteral(node) && namesPrefix.test(text)) || givenToKeyAttribute(node))
    .map(({ node, text }) => ({ file, line: node.getSourceFile().getLineAndCharacterOfPosition(node.getStart()).line + 1, text }));
};
