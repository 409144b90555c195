"""The editors' files of editors/ (docs/editors.md): each editor, run for real
where Debian has it, must mark coroutine, yield and await where they are
words of the language, and nowhere else.

The second source is a small C scanner here (code_mask): every place one of
the three words occurs as a string of letters (in `yielded`, in a comment, in
a string too) is a probe; a probe is a word of the language if it stands
alone (no letter, digit or _ around it) in code, outside comments, strings
and character constants. Each editor highlights the examples and
tests/editors/words.coc, where the words hide in names, comments, strings and
a macro, and says what it gave each probe:

  * Neovim (Debian 12's 0.7), with the configuration docs/editors.md shows:
    the filetype is coc, the syntax group at each probe (synID), and
    coroc-lsp attached;
  * Emacs (emacs-nox) with coroc-mode.el and the init lines docs/editors.md
    shows: the mode, the face at each probe (get-text-property), and eglot
    running coroc-lsp and showing its diagnostic through flymake;
  * VS Code's grammar, tokenized by VS Code's own engine (vscode-textmate,
    vscode-oniguruma) with VS Code's C grammar: the scopes at each probe.
    The npm packages come from tests/editors/fetch (pinned by
    tests/editors/package-lock.json), which .ci/run runs; without them the
    test fails and says so. The extension's package.json must point at files
    that exist, and extension.js, run against stand-ins for `vscode` and
    `vscode-languageclient`, must start coroc-lsp for the coc language.

Planted faults show the comparison bites: a grammar with the words at its top
level only (no injection) and a Vim syntax that matches the words inside
names are both caught. Helix is not in Debian 12: its files are not tested.
"""
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

from conftest import BUILD_DIR, SOURCE_DIR, TESTS_DIR

sys.path.insert(0, str(TESTS_DIR / "editors"))
import npm_deps  # noqa: E402

LSP = pathlib.Path(os.environ.get("COROC_LSP", BUILD_DIR / "transformer" / "coroc-lsp"))
EDITORS = SOURCE_DIR / "editors"
DOC = SOURCE_DIR / "docs" / "editors.md"
FILES = [SOURCE_DIR / "examples" / f"{name}.coc" for name in ("generator", "fizzbuzz", "echo")] \
    + [TESTS_DIR / "editors" / "words.coc"]
WORDS = ("coroutine", "yield", "await")
INSTALLED_AT = "/usr/local/share/coroc/editors"  # the prefix docs/editors.md's lines name
TIMEOUT = 180  # seconds: a bound on one editor's run (liveness), however loaded the machine


# {==================================================================
# The second source: where the words are words
# ===================================================================

def code_mask(text):
    """For each character of C text, whether it is code: not in a comment, a
    string literal or a character constant."""
    mask = [True] * len(text)
    i, n = 0, len(text)
    while i < n:
        two = text[i:i + 2]
        if two == "//":
            end = text.find("\n", i)
            end = n if end < 0 else end
        elif two == "/*":
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
        elif text[i] in "\"'":
            end = i + 1
            while end < n and text[end] not in (text[i], "\n"):
                end += 2 if text[end] == "\\" else 1
            end = min(end + 1, n)
        else:
            i += 1
            continue
        mask[i:end] = [False] * (end - i)
        i = end
    return mask


class Probe:
    """One occurrence of a word's letters, with its place as each editor counts."""

    def __init__(self, text, start, word, mask):
        ident = re.compile(r"\w")
        end = start + len(word)
        line_start = text.rfind("\n", 0, start) + 1
        before = text[line_start:start]
        self.word = word
        self.line = text.count("\n", 0, start)                # 0-based
        self.byte_col = len(before.encode())                   # Vim's col() - 1
        self.utf16_col = len(before.encode("utf-16-le")) // 2  # VS Code's
        self.offset = start                                    # Emacs' point - 1
        alone = (start == 0 or not ident.match(text[start - 1])) and \
                (end == len(text) or not ident.match(text[end]))
        self.expected = alone and mask[start]

    def __repr__(self):
        return f"{self.word}@{self.line + 1}:{self.byte_col + 1}"


def probes(path):
    text = path.read_text()
    mask = code_mask(text)
    return [Probe(text, m.start(), m.group(), mask) for m in re.finditer("|".join(WORDS), text)]


def compare(path, got, expected_name):
    """got: for each probe, the highlight the editor gave it (a name, or a
    list of names). Return the probes where the editor and the scanner differ."""
    wrong = []
    for probe, mark in zip(probes(path), got):
        names = mark if isinstance(mark, list) else [mark]
        if (expected_name(probe.word) in names) != probe.expected:
            wrong.append((probe, "expected" if probe.expected else "not a word", mark))
    return wrong


def test_scanner_sees_every_kind_of_probe():
    """words.coc has words in code, and letters of them in names, comments
    and strings: the scanner must tell them apart, or the editors' tests
    compare nothing."""
    path = TESTS_DIR / "editors" / "words.coc"
    text = path.read_text()
    mask = code_mask(text)
    found = probes(path)
    assert {p.word for p in found if p.expected} == set(WORDS)
    in_names = [p for p in found if mask[p.offset] and not p.expected]
    outside_code = [p for p in found if not mask[p.offset]]
    names = {re.match(r"\w+", text[p.offset:]).group() for p in in_names}
    assert names >= {"yielded", "awaiting", "coroutines"}, names
    lines = text.splitlines()

    def not_code_on(marker):
        line = next(i for i, l in enumerate(lines) if marker in l)
        return [p for p in outside_code if p.line == line]
    assert len(not_code_on("// yield and await")) == 2    # a line comment
    assert len(not_code_on('= "coroutine int f')) == 3    # a string
    assert len(not_code_on("'\"'")) == 1                 # '"' opens no string: a comment follows


def test_words_coc_is_a_real_program(toolchain):
    """The traps are set in a program coroc takes and runs."""
    res = toolchain.build_and_run(TESTS_DIR / "editors" / "words.coc", "stackless", "gcc")
    assert res.returncode == 0, res.stderr


def env_with_lsp(tmp_path):
    """An environment for an editor: its config and state in tmp_path, and
    coroc-lsp found on PATH, as the docs' lines expect."""
    assert LSP.exists(), f"coroc-lsp not built at {LSP}"
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return dict(os.environ, HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"),
                XDG_DATA_HOME=str(home / ".local/share"), XDG_STATE_HOME=str(home / ".local/state"),
                XDG_CACHE_HOME=str(home / ".cache"), PATH=f"{LSP.parent}{os.pathsep}{os.environ['PATH']}")


def doc_block(lang, marker, quote=str):
    """The fenced block of docs/editors.md in `lang` that contains `marker`,
    with the installed prefix replaced by this source tree's editors/
    (spelled by `quote`, as the language wants a path with spaces)."""
    blocks = re.findall(rf"```{lang}\n(.*?)```", DOC.read_text(), re.S)
    [block] = [b for b in blocks if marker in b]
    assert INSTALLED_AT in block, block
    return block.replace(INSTALLED_AT, quote(EDITORS))


def run_editor(cmd, env, out):
    res = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, env=env,
                         timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    assert out.exists(), f"{cmd[0]} wrote nothing: {res.returncode}\n{res.stdout}\n{res.stderr}"
    return json.loads(out.read_text())


# }==================================================================

# {==================================================================
# Neovim, with the Vim files on its runtimepath
# ===================================================================

VIM_GROUPS = {"coroutine": "cocCoroutine", "yield": "cocYield", "await": "cocAwait"}

# Opens each file, then writes what it found: the filetype, the syntax group at
# each probe, and whether a language client attached to the buffer.
NVIM_PROBE = """\
local result = {}
for _, item in ipairs(vim.json.decode(_G.arg_probes)) do
  vim.cmd("edit " .. vim.fn.fnameescape(item.file))
  local groups = {}
  for _, at in ipairs(item.at) do
    table.insert(groups, vim.fn.synIDattr(vim.fn.synID(at[1], at[2], 1), "name"))
  end
  -- buf_get_clients is keyed by the client's id: # would not count it
  local attached = vim.wait(60000, function() return next(vim.lsp.buf_get_clients(0)) ~= nil end, 50)
  table.insert(result, { filetype = vim.bo.filetype, syntax = vim.bo.syntax,
                         commentstring = vim.bo.commentstring, groups = groups,
                         attached = attached })
end
local f = io.open(_G.arg_out, "w")
f:write(vim.json.encode(result))
f:close()
vim.lsp.stop_client(vim.lsp.get_active_clients())
vim.wait(10000, function() return #vim.lsp.get_active_clients() == 0 end, 50)
vim.cmd("qall!")
"""


def neovim_groups(tmp_path, vim_dir=EDITORS / "vim", files=FILES):
    if shutil.which("nvim") is None:
        pytest.fail("nvim is missing: apt-get install -y neovim (.ci/run installs it)")
    config = tmp_path / "init.lua"
    config.write_text(doc_block("lua", "start_client").replace(str(EDITORS / "vim"), str(vim_dir)))
    probe = tmp_path / "probe.lua"
    probe.write_text(NVIM_PROBE)
    out = tmp_path / "neovim.json"
    todo = [{"file": str(f), "at": [[p.line + 1, p.byte_col + 1] for p in probes(f)]} for f in files]
    lua = f"lua _G.arg_probes = {json.dumps(json.dumps(todo))}; _G.arg_out = {json.dumps(str(out))}"
    return run_editor(["nvim", "--headless", "--clean", "-n", "-i", "NONE", "--cmd", lua,
                       "-u", config, "-c", f"luafile {probe}"], env_with_lsp(tmp_path), out)


# {==================================================================
# Vim, with the Vim files and ALE (Debian's vim and vim-ale), configured as
# docs/editors.md says
# ===================================================================

VIM_PROGRAM = """#include <coro.h>
coroutine int gen(int n) {
  for (int i = 0; i < n; i++)
    yield i + undefined_name;
}
int plain(void) {
  await coro_sleep(1);
  return 0;
}
"""

# Opens the program, waits (a liveness bound) for both servers' diagnostics,
# hovers on a parameter, and writes what it found as JSON to $OUT.
VIM_PROBE = r"""
execute 'edit' fnameescape($PROGRAM)
let s:found = {'filetype': &filetype, 'groups': {}}
if &filetype !=# 'coc'
  call writefile([json_encode(s:found)], $OUT)
  qa!
endif
for [s:word, s:line, s:col] in json_decode($WORDS)
  let s:found.groups[s:word] = synIDattr(synID(s:line, s:col, 1), 'name')
endfor
for s:i in range(1200)
  if len(ale#engine#GetLoclist(bufnr(''))) >= 2
    break
  endif
  sleep 100m
endfor
let s:found.diagnostics = map(copy(ale#engine#GetLoclist(bufnr(''))),
      \ {_, d -> [d.lnum, d.col, d.text]})
let [s:line, s:col] = json_decode($HOVER_AT)
call cursor(s:line, s:col)
let g:ale_hover_to_preview = 1
ALEHover
let s:found.hover = []
for s:i in range(1200)
  for s:w in range(1, winnr('$'))
    if getwinvar(s:w, '&previewwindow')
      let s:found.hover = getbufline(winbufnr(s:w), 1, '$')
    endif
  endfor
  if !empty(s:found.hover)
    break
  endif
  sleep 100m
endfor
call writefile([json_encode(s:found)], $OUT)
qa!
"""


def one_based(text, needle, nth=0):
    """[line, column] of the nth `needle` in text, 1-based as Vim counts."""
    i = -1
    for _ in range(nth + 1):
        i = text.index(needle, i + 1)
    return [text.count("\n", 0, i) + 1, i - (text.rfind("\n", 0, i) + 1) + 1]


def test_vim_highlights_and_runs_coroc_lsp_through_ale(tmp_path):
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    program = project / "gen.coc"
    program.write_text(VIM_PROGRAM)
    vimrc = tmp_path / "vimrc"
    # (`set runtimepath+=`: a space in the value is written `\ `)
    vimrc.write_text("set nocompatible\n" +
                     doc_block("vim", "packadd! ale", lambda p: str(p).replace(" ", "\\ ")))
    probe = tmp_path / "probe.vim"
    probe.write_text(VIM_PROBE)
    out = tmp_path / "vim.json"
    words = [["coroutine", *one_based(VIM_PROGRAM, "coroutine")],
             ["yield", *one_based(VIM_PROGRAM, "yield")], ["await", *one_based(VIM_PROGRAM, "await")]]
    env = dict(env_with_lsp(tmp_path), PROGRAM=str(program), OUT=str(out), WORDS=json.dumps(words),
               HOVER_AT=json.dumps(one_based(VIM_PROGRAM, "n;")))
    found = run_editor(["vim", "-N", "-u", vimrc, "-i", "NONE", "-n", "-es", "-S", probe], env, out)
    assert found["filetype"] == "coc"
    assert found["groups"] == VIM_GROUPS, found["groups"]
    # coroc's refusal and clangd's error, each at its place in the user's text
    assert sorted(found["diagnostics"]) == sorted([
        [*one_based(VIM_PROGRAM, "undefined_name"), "Use of undeclared identifier 'undefined_name'"],
        [*one_based(VIM_PROGRAM, "await"), found["diagnostics"][-1][2]]]), found["diagnostics"]
    assert any("await" in d[2] and "coroutine" in d[2] for d in found["diagnostics"]), found["diagnostics"]
    assert "int n" in found["hover"], found["hover"]


def test_neovim_highlights_the_words(tmp_path):
    results = neovim_groups(tmp_path)
    for path, got in zip(FILES, results):
        assert (got["filetype"], got["syntax"], got["commentstring"]) == ("coc", "coc", "/*%s*/"), got
        assert got["attached"], f"coroc-lsp did not attach to {path.name}"
        assert compare(path, got["groups"], VIM_GROUPS.get) == [], path.name
    # the probes' words are the language's in each example: the test is not empty
    assert sum(g in VIM_GROUPS.values() for got in results for g in got["groups"]) > 20


def test_neovim_catches_a_syntax_that_matches_inside_names(tmp_path):
    """A planted fault: the words matched as letters, not as keywords."""
    broken = tmp_path / "vim"
    shutil.copytree(EDITORS / "vim", broken)
    syntax = broken / "syntax" / "coc.vim"
    text = syntax.read_text().replace("syntax keyword cocYield yield", "syntax match cocYield /yield/")
    assert text != syntax.read_text()
    syntax.write_text(text)
    words = TESTS_DIR / "editors" / "words.coc"
    [got] = neovim_groups(tmp_path, broken, [words])
    wrong = compare(words, got["groups"], VIM_GROUPS.get)
    assert wrong and all(p.word == "yield" and why == "not a word" for p, why, _ in wrong), wrong


# }==================================================================

# {==================================================================
# Emacs: coroc-mode, and eglot with coroc-lsp
# ===================================================================

# After the docs' init lines: each file's mode and the face at each probe,
# then a file with an error, and what flymake shows of eglot's diagnostics.
EMACS_PROBE = """\
(require 'json)
(defun probe-face (pos)
  (let ((face (get-text-property pos 'face)))
    (mapcar #'symbol-name (if (listp face) face (list face)))))
(let (result)
  (dolist (item (append (json-read-file (getenv "PROBES")) nil))
    (with-current-buffer (find-file-noselect (alist-get 'file item))
      (font-lock-ensure)
      (push `((mode . ,(symbol-name major-mode))
              (faces . ,(vconcat (mapcar (lambda (at) (vconcat (probe-face (+ 1 at))))
                                         (alist-get 'at item)))))
            result)))
  (let ((buffer (find-file-noselect (getenv "BROKEN")))
        (deadline (+ (float-time) 60)) diags)
    (with-current-buffer buffer
      (run-hooks 'post-command-hook)  ; eglot-ensure connects after the next command
      (when (bound-and-true-p flymake-mode)
        (flymake-start)               ; an idle timer would, in an editor with a user
        (while (and (null diags) (< (float-time) deadline))
          (accept-process-output nil 0.1)
          (setq diags (flymake-diagnostics))))
      (push `((server . ,(and (fboundp 'eglot-current-server) (eglot-current-server)
                              (process-command (jsonrpc--process (eglot-current-server)))))
              (diagnostics . ,(vconcat (mapcar (lambda (d)
                                                 `((line . ,(line-number-at-pos (flymake-diagnostic-beg d)))
                                                   (text . ,(flymake-diagnostic-text d))))
                                               diags))))
            result)
      (ignore-errors (eglot-shutdown (eglot-current-server)))))
  (with-temp-file (getenv "OUT") (insert (json-encode (vconcat (nreverse result))))))
"""


def emacs_faces(tmp_path):
    if shutil.which("emacs") is None:
        pytest.fail("emacs is missing: apt-get install -y --no-install-recommends emacs-nox "
                    "elpa-eglot (.ci/run installs them)")
    init = tmp_path / "init.el"
    init.write_text(doc_block("elisp", "coroc-mode"))
    probe = tmp_path / "probe.el"
    probe.write_text(EMACS_PROBE)
    todo = tmp_path / "probes.json"
    todo.write_text(json.dumps([{"file": str(f), "at": [p.offset for p in probes(f)]} for f in FILES]))
    broken = tmp_path / "broken.coc"
    broken.write_text("int g(void) {\n  yield 1;\n}\n")
    out = tmp_path / "emacs.json"
    env = dict(env_with_lsp(tmp_path), PROBES=str(todo), BROKEN=str(broken), OUT=str(out))
    # --batch reads no init file and activates no package (eglot's autoloads, from
    # Debian's elpa-eglot): do both as Emacs starting for a user does
    return run_editor(["emacs", "--batch", "--eval", "(package-activate-all)", "-l", init, "-l", probe],
                      env, out)


def test_emacs_highlights_the_words_and_runs_coroc_lsp(tmp_path):
    *results, lsp = emacs_faces(tmp_path)
    for path, got in zip(FILES, results):
        assert got["mode"] == "coroc-mode", path.name
        assert compare(path, got["faces"], lambda word: "font-lock-keyword-face") == [], path.name
    assert lsp["server"] and os.path.basename(lsp["server"][0]) == "coroc-lsp", lsp
    # coroc's own error; clangd's on the same broken file may come beside it
    assert [(d["line"], d["text"]) for d in lsp["diagnostics"] if d["text"].startswith("coroc:")] == \
        [(2, "coroc: 'yield' outside a coroutine")], lsp


# }==================================================================

# {==================================================================
# VS Code: the grammar under VS Code's engine, and the extension
# ===================================================================

VSCODE = EDITORS / "vscode"
SCOPES = {"coroutine": "storage.modifier.coroutine.coc", "yield": "keyword.control.flow.yield.coc",
          "await": "keyword.control.flow.await.coc"}


def tokenize(grammar, files=FILES):
    modules = npm_deps.node_modules()
    if modules is None:
        pytest.fail(f"the npm packages are missing from {npm_deps.install_dir()}: run tests/editors/fetch "
                    "(.ci/run does)")
    node = shutil.which("node") or shutil.which("nodejs")
    assert node, "node is missing: apt-get install -y npm (.ci/run installs it)"
    res = subprocess.run([node, TESTS_DIR / "editors" / "tokenize.js", modules, grammar, *files],
                         capture_output=True, text=True, timeout=TIMEOUT)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


def scopes_at_probes(path, lines):
    """The scopes of the token where each probe starts; a token of a word must
    be the word, no more and no less."""
    marks = []
    for probe in probes(path):
        [(start, end, scopes)] = [t for t in lines[probe.line] if t[0] <= probe.utf16_col < t[1]]
        if any(s in SCOPES.values() for s in scopes):
            assert (start, end) == (probe.utf16_col, probe.utf16_col + len(probe.word)), probe
        marks.append(scopes)
    return marks


def test_vscode_grammar_scopes_the_words():
    grammar = VSCODE / "syntaxes" / "coc.tmLanguage.json"
    tokens = tokenize(grammar)
    for path in FILES:
        got = scopes_at_probes(path, tokens[str(path)])
        assert compare(path, got, SCOPES.get) == [], path.name


def test_vscode_grammar_without_injection_is_caught(tmp_path):
    """A planted fault: the words as patterns of the grammar's top level, tried
    before C's. They are then never tried inside C's rules: a function body."""
    grammar = json.loads((VSCODE / "syntaxes" / "coc.tmLanguage.json").read_text())
    [(_, injected)] = grammar.pop("injections").items()
    grammar["patterns"] = injected["patterns"] + grammar["patterns"]
    flat = tmp_path / "flat.tmLanguage.json"
    flat.write_text(json.dumps(grammar))
    path = SOURCE_DIR / "examples" / "generator.coc"
    wrong = compare(path, scopes_at_probes(path, tokenize(flat, [path])[str(path)]), SCOPES.get)
    assert wrong and {p.word for p, why, _ in wrong} == {"yield"}, wrong


def test_vscode_extension_contributes_existing_files():
    manifest = json.loads((VSCODE / "package.json").read_text())
    [language] = manifest["contributes"]["languages"]
    assert language["id"] == "coc" and language["extensions"] == [".coc"]
    assert (VSCODE / language["configuration"]).is_file()
    json.loads((VSCODE / language["configuration"]).read_text())
    [grammar] = manifest["contributes"]["grammars"]
    assert grammar["language"] == "coc"
    own = json.loads((VSCODE / grammar["path"]).read_text())
    assert own["scopeName"] == grammar["scopeName"] == "source.coc"
    assert (VSCODE / manifest["main"]).is_file()
    assert "onLanguage:coc" in manifest["activationEvents"]
    assert "vscode-languageclient" in manifest["dependencies"]
    version = re.search(r"project\(coroc VERSION ([0-9.]+)", (SOURCE_DIR / "CMakeLists.txt").read_text())
    assert manifest["version"] == version.group(1)


# Runs extension.js's activate() with stand-ins for the modules only VS Code
# and its npm dependency give, and prints the client it made; then runs the
# client's executeCommand middleware on coroc.showGeneratedC's two answers (a
# translation, and null), with a `next` that stands for the server, and prints
# what the extension showed and what its content provider gives for it.
EXTENSION_RUN = """\
const Module = require("module");
const made = [], providers = {}, opened = [], messages = [], fired = [];
class Uri {
  constructor(parts) { Object.assign(this, parts); }
  static from(parts) { return new Uri(parts); }
  toString() { return `${this.scheme}:${this.path}?${this.query}`; }
}
const fakes = {
  vscode: {
    Uri,
    ViewColumn: { Beside: -2 },
    EventEmitter: class { constructor() { this.event = () => {}; } fire(uri) { fired.push(String(uri)); } },
    window: {
      showTextDocument: (doc, options) => { opened.push({ uri: doc.uri, options }); return Promise.resolve(); },
      showInformationMessage: (text) => { messages.push(text); },
    },
    workspace: {
      getConfiguration: (section) => ({
        get: (key, fallback) => (section === "coroc" && key === "server.path" && process.env.SETTING) || fallback,
      }),
      registerTextDocumentContentProvider: (scheme, provider) => { providers[scheme] = provider; return {}; },
      openTextDocument: (uri) => Promise.resolve({ uri }),
    },
  },
  "vscode-languageclient/node": { LanguageClient: class {
    constructor(id, name, server, client) { made.push({ id, name, server, client }); }
    start() { made[made.length - 1].started = true; return Promise.resolve(); }
    stop() { return Promise.resolve(); }
  } },
};
const load = Module._load;
Module._load = (request, ...rest) => fakes[request] || load(request, ...rest);
const extension = require(process.argv[2]);
const context = { subscriptions: [] };
(async () => {
  await extension.activate(context);
  const run = made[0].client.middleware.executeCommand;
  const arg = { uri: "file:///work/gen.coc", coroutine: "count", backend: "stackful" };
  const sent = [];
  const answer = (result) => (command, args) => { sent.push({ command, args }); return Promise.resolve(result); };
  const returned = await run("coroc.showGeneratedC", [arg], answer({ version: 3, text: "int x;\\n" }));
  const content = opened.map((o) => Object.keys(providers).map((s) => providers[s].provideTextDocumentContent(o.uri)));
  await run("coroc.showGeneratedC", [{ uri: "file:///work/gen.coc" }], answer(null));
  console.log(JSON.stringify({ made, subscriptions: context.subscriptions.length, providers: Object.keys(providers),
                               sent, returned, opened, content, messages, fired }));
})();
"""


def run_extension(tmp_path, setting=""):
    node = shutil.which("node") or shutil.which("nodejs")
    assert node, "node is missing: apt-get install -y npm (.ci/run installs it)"
    run = tmp_path / "run.js"
    run.write_text(EXTENSION_RUN)
    res = subprocess.run([node, run, VSCODE / "extension.js"], capture_output=True, text=True,
                         timeout=TIMEOUT, env=dict(os.environ, SETTING=setting))
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


@pytest.mark.parametrize("setting", ["", "/opt/coroc/bin/coroc-lsp"])
def test_vscode_extension_starts_coroc_lsp(tmp_path, setting):
    got = run_extension(tmp_path, setting)
    [client] = got["made"]
    assert client["server"]["command"] == (setting or "coroc-lsp") and client["started"]
    assert client["client"]["documentSelector"] == [{"scheme": "file", "language": "coc"}]
    assert got["subscriptions"] == 2  # the client and the generated C's provider


def test_vscode_extension_shows_the_generated_c(tmp_path):
    """The code lens's command: the server's answer opens beside the .coc
    as a read-only document (a content provider's) named for the coroutine
    and the backend, whose text is the answer's; a null answer (no good
    translation yet) says so and opens nothing. What the server answered
    goes back to the client unchanged."""
    got = run_extension(tmp_path)
    assert got["providers"] == ["coroc-generated"]
    assert [s["command"] for s in got["sent"]] == ["coroc.showGeneratedC"] * 2
    assert got["sent"][0]["args"] == [{"uri": "file:///work/gen.coc", "coroutine": "count",
                                       "backend": "stackful"}]
    assert got["returned"] == {"version": 3, "text": "int x;\n"}
    [shown] = got["opened"]
    assert shown["uri"]["scheme"] == "coroc-generated" and shown["uri"]["path"] == "/count.stackful.c"
    assert shown["uri"]["query"] == "file:///work/gen.coc"
    assert shown["options"] == {"preview": True, "viewColumn": -2}
    assert got["content"] == [["int x;\n"]]
    assert got["fired"] == ["coroc-generated:/count.stackful.c?file:///work/gen.coc"]
    assert len(got["messages"]) == 1 and "no translation" in got["messages"][0]


# }==================================================================
