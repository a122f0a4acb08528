"""The notebook example of docs/python.md runs as written (matplotlib stood in for when it is not
installed) and plots one mean speed per 10 frames."""

import math
import re
import sys
import types

from conftest import REPO


def test_the_notebook_example_runs(monkeypatch):
    text = (REPO / "docs" / "python.md").read_text()
    code = re.search(r"## In a notebook\s+```python\n(.*?)```", text, re.S).group(1)
    assert len(code.strip().splitlines()) == 10
    plotted = []
    try:
        import matplotlib

        matplotlib.use("Agg")
    except ImportError:
        pyplot = types.SimpleNamespace(
            plot=lambda x, y: plotted.append((list(x), list(y))),
            xlabel=lambda _: None,
            ylabel=lambda _: None,
        )
        stand_in = types.ModuleType("matplotlib")
        stand_in.pyplot = pyplot
        monkeypatch.setitem(sys.modules, "matplotlib", stand_in)
        monkeypatch.setitem(sys.modules, "matplotlib.pyplot", pyplot)
    monkeypatch.chdir(REPO)
    scope = {}
    exec(compile(code, "docs/python.md", "exec"), scope)
    assert scope["sim"].frame == 600
    assert len(scope["speeds"]) == 60
    assert all(math.isfinite(s) and 0 < s < 3 for s in scope["speeds"])
    assert len(scope["props"]) == 38
    if plotted:
        times, speeds = plotted[0]
        assert speeds == scope["speeds"]
        assert math.isclose(times[-1], 600 * scope["sim"].fixed_step_s)


def test_the_readme_shows_the_same_notebook_example():
    notebook = re.search(
        r"## In a notebook\s+```python\n(.*?)```", (REPO / "docs" / "python.md").read_text(), re.S
    ).group(1)
    readme = (REPO / "README.md").read_text()
    shown = re.findall(r"```python\n(.*?)```", readme, re.S)
    assert shown == [notebook]
