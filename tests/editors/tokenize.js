// tokenize.js: tokenize files with a TextMate grammar as VS Code does
// (vscode-textmate, with vscode-oniguruma's regular expressions), for
// tests/test_editors.py.
//
//   node tokenize.js NODE_MODULES GRAMMAR.json FILE...
//
// GRAMMAR may include source.c: that is VS Code's C grammar, from the
// tm-grammars package in NODE_MODULES. Prints JSON: for each file, for each
// line, its tokens as [start, end, [scope, ...]], columns in UTF-16 units
// (JavaScript's strings), as VS Code counts them.
"use strict";
const fs = require("fs");
const path = require("path");

const [modules, grammarPath, ...files] = process.argv.slice(2);
const need = (name) => require(path.join(modules, name));
const textmate = need("vscode-textmate");
const oniguruma = need("vscode-oniguruma");

async function main() {
  const wasm = fs.readFileSync(path.join(modules, "vscode-oniguruma", "release", "onig.wasm"));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const own = JSON.parse(fs.readFileSync(grammarPath, "utf8"));
  const known = {
    [own.scopeName]: own,
    "source.c": JSON.parse(fs.readFileSync(path.join(modules, "tm-grammars", "grammars", "c.json"), "utf8")),
  };
  const registry = new textmate.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
      createOnigString: (s) => new oniguruma.OnigString(s),
    }),
    loadGrammar: async (scope) => known[scope] || null,
  });
  const grammar = await registry.loadGrammar(own.scopeName);
  const result = {};
  for (const file of files) {
    let state = textmate.INITIAL;
    result[file] = fs.readFileSync(file, "utf8").split("\n").map((line) => {
      const { tokens, ruleStack } = grammar.tokenizeLine(line, state);
      state = ruleStack;
      return tokens.map((t) => [t.startIndex, t.endIndex, t.scopes]);
    });
  }
  process.stdout.write(JSON.stringify(result));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
