"""The layers (issue 31): commands > analysis > simulation core > engines > foundation, each importing only
from the ones below it, as pyproject.toml's import-linter contracts say; every module in a layer; no import
cycles; imports inside functions only where deferred on purpose, with the reason beside them."""
from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import grimp
import pytest
from importlinter.cli import lint_imports

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("sim", "analysis", "strategies")


def _contracts() -> list[dict]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]


def _layer_modules() -> list[list[str]]:
    layers = next(c for c in _contracts() if c["type"] == "layers")["layers"]
    return [[m.strip() for m in layer.replace("|", ":").split(":")] for layer in layers]


def _modules() -> list[str]:
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            found.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return found


def test_the_contracts_hold(monkeypatch):
    monkeypatch.chdir(ROOT)
    assert lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True, no_logo=True) == 0


def test_every_module_belongs_to_a_layer():
    """A module left out of every layer would be free to import anything: the contract would not see it."""
    layered = [m for layer in _layer_modules() for m in layer]
    loose = [m for m in _modules() if m not in PACKAGES[:1]  # `sim` itself: the parent of four layers
             and not any(m == top or m.startswith(top + ".") for top in layered)]
    assert not loose, f"modules in no layer of pyproject.toml's contract: {loose}"


def test_no_modules_import_each_other_in_a_cycle():
    """Within a layer too: a cycle hidden by an import inside a function still ties the modules together."""
    graph = grimp.build_graph(*PACKAGES)
    index, low, stack, on_stack, cycles, counter = {}, {}, [], set(), [], [0]

    def visit(v):  # Tarjan's strongly connected components
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph.find_modules_directly_imported_by(v):
            if w in PACKAGES:  # `import sim` reads the package's own settings (cache folder): not a tie
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    assert not cycles, f"import cycles: {cycles}"


def test_imports_inside_functions_say_why():
    """An import of our own modules inside a function is allowed where a heavy or not-yet-installed dependency
    is deferred on purpose, and then says so on its line."""
    silent = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            source = path.read_text()
            lines = source.splitlines()
            for node in ast.walk(ast.parse(source)):
                if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                for inner in ast.walk(node):
                    if isinstance(inner, ast.ImportFrom) and inner.level == 0 and inner.module:
                        names = [inner.module]
                    elif isinstance(inner, ast.Import):
                        names = [a.name for a in inner.names]
                    else:
                        continue
                    ours = [n for n in names if n.split(".")[0] in PACKAGES]
                    comment = lines[inner.lineno - 1].partition("#")[2]
                    if ours and not re.sub(r"noqa(: *[A-Z0-9, ]+)?", "", comment).strip():
                        silent.append(f"{path.relative_to(ROOT)}:{inner.lineno}")
    assert not silent, f"imports inside functions without a reason beside them: {sorted(set(silent))}"


@pytest.mark.slow
def test_an_upward_import_breaks_the_contract(tmp_path):
    """The contract can fail: the engines' random streams importing the analysis is caught."""
    for package in PACKAGES:
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    rng = tmp_path / "sim" / "rng.py"
    rng.write_text(rng.read_text() + "\nimport analysis.report  # planted: an engine module importing a page\n")
    done = subprocess.run([sys.executable, "-c", "import sys; from importlinter.cli import lint_imports; "
                           "sys.exit(lint_imports(config_filename='pyproject.toml', no_cache=True, no_logo=True))"],
                          cwd=tmp_path, capture_output=True, text=True, env={"PYTHONPATH": str(tmp_path),
                                                                              "PATH": "/usr/bin:/bin"})
    assert done.returncode == 1, done.stdout + done.stderr
    assert "sim.rng -> analysis.report" in done.stdout, done.stdout


def test_modules_left_out_of_the_compile_cache_key_sit_above_the_engines():
    """numba's cache folder is keyed by the engines' and the foundation's sources only (sim.NOT_COMPILED lists
    what is left out): a module left out must be one no engine can import, i.e. in a layer above them."""
    import sim
    above = [m for layer in _layer_modules()[:3] for m in layer]
    for path in sim.NOT_COMPILED:
        module = path.removesuffix(".py").removesuffix("/").replace("/", ".")
        assert any(module == top or module.startswith(top + ".") for top in above), path
    compiled = [p for p in sorted((ROOT / "sim").rglob("*.py")) if not p.relative_to(ROOT).as_posix().startswith(
        sim.NOT_COMPILED)]
    assert ROOT / "sim" / "mohur" / "engine.py" in compiled and ROOT / "sim" / "registry.py" in compiled
