"""docs/coroc.1, the man page, against the tool it describes.

- groff renders it without a single warning (`groff -man -Tutf8 -ww -z`);
- its SYNOPSIS is the usage that `coroc --help` prints, and every option that
  `coroc --help` lists has an entry under OPTIONS;
- it has the sections a man page of a command has, its ENVIRONMENT names every
  variable that coroc reads, and its title line carries coroc's version;
- `cmake --install` puts it in PREFIX/share/man/man1/coroc.1 (installed into a
  temporary prefix, as tests/test_install.py does), where man(1) finds it.
"""
import os
import re
import shutil
import subprocess

import pytest

from conftest import BUILD_DIR, SOURCE_DIR, run
from test_install import CMAKE, cache_value, sh

MANPAGE = SOURCE_DIR / "docs" / "coroc.1"
GROFF = shutil.which("groff")
needs_groff = pytest.mark.skipif(GROFF is None, reason="groff is not installed (Debian: apt-get install groff)")

SECTIONS = ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "ENVIRONMENT", "EXIT STATUS",
            "DIAGNOSTICS", "EXAMPLES", "FILES", "SEE ALSO"]


def render(path=MANPAGE):
    """The page as a terminal shows it, as plain text: no SGR escapes, no overstriking,
    and ASCII hyphens where a groff may print U+2010 or U+2212 for `-` and `\\-`."""
    proc = subprocess.run([GROFF, "-man", "-Tutf8", "-P-cbou", str(path)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.replace("\u2010", "-").replace("\u2212", "-")


def sections(text):
    """{heading: body} of the rendered page (headings start in column 0)."""
    parts = re.split(r"^([A-Z][A-Z ]+)$", text, flags=re.M)
    return {parts[i].strip(): parts[i + 1] for i in range(1, len(parts) - 1, 2)}


def words(text):
    return " ".join(text.split())


@pytest.fixture(scope="module")
def help_text(coroc):
    res = run([coroc, "--help"])
    assert res.returncode == 0, res.stderr
    return res.stdout


def help_options(help_text):
    """Every option the summary of `coroc --help` lists: the first column of its
    indented lines (`  -I DIR, -D NAME[=V]  as for ...`)."""
    opts = []
    for line in help_text.splitlines():
        if not re.match(r"^\s+-", line):
            continue
        first_column = re.split(r"\s{2,}", line.strip())[0]
        opts += re.findall(r"(?<![\w-])--?[A-Za-z][\w-]*(?:=\w+)?", first_column)
    return opts


@needs_groff
def test_renders_without_warnings():
    proc = subprocess.run([GROFF, "-man", "-Tutf8", "-ww", "-z", str(MANPAGE)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr


@needs_groff
def test_has_the_sections_of_a_command():
    found = list(sections(render()))
    assert [s for s in found if s in SECTIONS] == SECTIONS, found


@needs_groff
def test_synopsis_is_the_usage(help_text):
    usage = help_text.split("\n\n")[0]
    assert usage.startswith("usage: "), help_text
    synopsis = sections(render())["SYNOPSIS"]
    assert words(synopsis) == words(usage[len("usage: "):])


@needs_groff
def test_every_option_of_help_is_described(help_text):
    opts = help_options(help_text)
    assert {"--backend=stackless", "--backend=stackful", "-o", "-I", "-D", "--no-line", "--dot",
            "--stats", "--help", "--version"} <= set(opts), opts
    options = sections(render())["OPTIONS"]
    # An entry is a tag line: indented by 7 columns, the option first or after a comma.
    tags = [l.strip() for l in options.splitlines() if re.match(r"^ {7}\S", l)]
    missing = [o for o in opts
               if not any(re.search(rf"(^|, ){re.escape(o)}(?![\w=-])", t) for t in tags)]
    assert not missing, f"options of coroc --help without an entry in OPTIONS: {missing}\n{tags}"


def test_environment_names_every_variable_coroc_reads():
    sources = sorted((SOURCE_DIR / "transformer").rglob("*.[cyl]"))
    read = set()
    for src in sources:
        read |= set(re.findall(r'getenv\("(\w+)"\)', src.read_text()))
    assert {"COROC_CPP", "COROC_CC", "COROC_TRACE", "COROC_DUMP_AST"} <= read, read
    page = MANPAGE.read_text()
    env = page[page.index(".SH ENVIRONMENT"):page.index(".SH EXIT STATUS")]
    tagged = set(re.findall(r"^\.TP\n\.B (\w+)$", env, flags=re.M))
    assert read <= tagged, f"read by coroc, missing from ENVIRONMENT: {sorted(read - tagged)}"


def test_title_carries_the_version(coroc):
    version = run([coroc, "--version"]).stdout.strip()          # "coroc 0.1.0"
    th = re.search(r"^\.TH COROC 1 \S+ \"([^\"]+)\"", MANPAGE.read_text(), flags=re.M)
    assert th and th.group(1) == version, (th and th.group(0), version)


@pytest.fixture(scope="module")
def mandir(coroc, tmp_path_factory):
    """`cmake --install` of the build into a temporary prefix, as test_install.py does;
    returns PREFIX/share/man (CMAKE_INSTALL_MANDIR, as configured)."""
    assert (BUILD_DIR / "cmake_install.cmake").exists(), f"no configured build at {BUILD_DIR}"
    prefix = tmp_path_factory.mktemp("prefix")
    env = {k: v for k, v in os.environ.items() if k != "DESTDIR"}   # straight into the prefix
    sh([CMAKE, "--install", BUILD_DIR, "--prefix", prefix], env=env)
    # GNUInstallDirs leaves the cache entries empty for their defaults: share, then share/man.
    cache = (BUILD_DIR / "CMakeCache.txt").read_text()
    datarootdir = cache_value(cache, "CMAKE_INSTALL_DATAROOTDIR", "") or "share"
    return prefix / (cache_value(cache, "CMAKE_INSTALL_MANDIR", "") or f"{datarootdir}/man")


def test_installed_in_man1(mandir):
    page = mandir / "man1" / "coroc.1"
    assert page.is_file(), f"no {page}: is the build configured with the install rule of " \
                           "transformer/CMakeLists.txt? (cmake --build re-runs the configuration)"
    assert page.read_bytes() == MANPAGE.read_bytes()


@pytest.mark.skipif(shutil.which("man") is None, reason="man is not installed")
def test_man_finds_the_installed_page(mandir):
    env = dict(os.environ, MANWIDTH="80", MANPAGER="cat", PAGER="cat")
    env.pop("MANPATH", None)
    res = subprocess.run(["man", "-M", str(mandir), "1", "coroc"],
                         capture_output=True, text=True, timeout=60, env=env)
    assert res.returncode == 0, res.stderr
    assert re.search(r"coroc\s+-\s+turn C with coroutines into plain C",
                     res.stdout.replace("\u2010", "-").replace("\u2212", "-")), res.stdout
