"""Opening and checking projects: diagnostics as objects, errors as located exceptions."""

import shutil

import pytest

import stagecraft
from conftest import EXAMPLES, example


def broken_copy(tmp_path):
    """crosswalk-demo with a text where its manifest's seed belongs (line 4, column 16)."""
    copy = tmp_path / "broken"
    shutil.copytree(example("crosswalk-demo"), copy)
    manifest = copy / "stagecraft.ron"
    text = manifest.read_text()
    assert "    root_seed: 10,\n" in text
    manifest.write_text(text.replace("    root_seed: 10,\n", '    root_seed: "ten",\n'))
    return copy


@pytest.mark.parametrize("name", EXAMPLES)
def test_examples_check_clean(name):
    project = stagecraft.Project.open(example(name))
    assert [d for d in project.check() if d.is_error] == []
    assert project.files >= 2


def test_project_properties():
    project = stagecraft.Project.open(example("street-block"))
    assert project.name == "Street block"
    assert project.root_seed == 7
    assert project.recipes == ["street-block"]
    assert project.scenarios == ["crosswalk-rush", "panic-flee"]


def test_check_lists_diagnostics_as_the_cli_does(cli, tmp_path):
    path = broken_copy(tmp_path)
    code, report = cli("check", path, "--json")
    assert code == 1
    diagnostics = stagecraft.Project.open(path).check()
    assert len(diagnostics) == len(report["diagnostics"]) >= 1
    for mine, theirs in zip(diagnostics, report["diagnostics"]):
        assert (mine.severity, mine.file, mine.line, mine.column, mine.path, mine.message, mine.expected) == (
            theirs["severity"], theirs["file"], theirs["line"], theirs["column"], theirs["path"],
            theirs["message"], theirs["expected"],
        )
    first = diagnostics[0]
    assert (first.severity, first.file, first.line, first.column) == ("error", "stagecraft.ron", 4, 16)
    assert first.path == "root_seed"
    assert str(first).startswith("stagecraft.ron:4:16: error: ")


def test_generating_a_project_with_errors_raises_a_located_project_error(tmp_path):
    project = stagecraft.Project.open(broken_copy(tmp_path))
    with pytest.raises(stagecraft.ProjectError) as raised:
        project.generate()
    error = raised.value
    assert isinstance(error, stagecraft.StagecraftError)
    assert (error.file, error.line, error.column, error.path) == ("stagecraft.ron", 4, 16, "root_seed")
    assert [d.file for d in error.diagnostics] == ["stagecraft.ron"] * len(error.diagnostics)
    assert "stagecraft.ron:4:16" in str(error)
    with pytest.raises(stagecraft.ProjectError) as raised:
        stagecraft.Simulation(project, "ping-pong")
    assert (raised.value.line, raised.value.column) == (4, 16)
    with pytest.raises(stagecraft.ProjectError):
        project.cook(tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_a_missing_folder_is_a_stagecraft_error(tmp_path):
    with pytest.raises(stagecraft.StagecraftError) as raised:
        stagecraft.Project.open(tmp_path / "nowhere")
    assert "does not exist" in str(raised.value)
    assert raised.value.file is None and raised.value.line is None


def test_a_file_that_is_not_utf8_is_located(tmp_path):
    copy = tmp_path / "latin1"
    shutil.copytree(example("crosswalk-demo"), copy)
    scenario = copy / "scenarios" / "ping-pong.scenario.ron"
    scenario.write_bytes(b"Scenario(\n  name: \"caf\xe9\",\n)\n")
    diagnostics = [d for d in stagecraft.Project.open(copy).check() if d.file == "scenarios/ping-pong.scenario.ron"]
    assert [(d.severity, d.line, d.column) for d in diagnostics] == [("error", 2, 13)]
    assert "not UTF-8" in diagnostics[0].message


def test_cook_refuses_a_folder_that_is_not_a_bundle(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    project = stagecraft.Project.open(example("crosswalk-demo"))
    with pytest.raises(stagecraft.StagecraftError) as raised:
        project.cook(out)
    # The command's rule and message (`stagecraft cook --out`).
    assert "is not a complete Stagecraft bundle" in str(raised.value)
    assert "refusing to replace it (force=True replaces a folder" in str(raised.value)
    assert "--force" not in str(raised.value)
    assert (out / "keep.txt").read_text() == "mine"
    # `force=True` replaces it, as `--force` does.
    cooked = project.cook(out, force=True)
    assert not (out / "keep.txt").exists()
    assert (out / "manifest.ron").is_file()
    assert project.diff(out).equal
    assert cooked["files"] == len(list((out / "products").iterdir())) + 1


def test_cook_never_replaces_the_project_folder(tmp_path):
    copy = tmp_path / "demo"
    shutil.copytree(example("crosswalk-demo"), copy)
    before = sorted(p.relative_to(copy) for p in copy.rglob("*"))
    project = stagecraft.Project.open(copy)
    for out in (copy, tmp_path):
        with pytest.raises(stagecraft.StagecraftError) as raised:
            project.cook(out, force=True)
        assert "refusing to replace it with a bundle" in str(raised.value), out
    assert sorted(p.relative_to(copy) for p in copy.rglob("*")) == before


def test_cook_recovers_what_a_killed_swap_left(tmp_path):
    """A swap killed after moving the old bundle aside left `.out.old-PID` and no `out`: the
    next cook puts the old bundle back before anything else, then replaces it."""
    project = stagecraft.Project.open(example("crosswalk-demo"))
    project.cook(tmp_path / "out", seed=1)
    # No process has this id (above the kernel's pid_max, 2**22).
    (tmp_path / "out").rename(tmp_path / ".out.old-4999999")
    second = project.cook(tmp_path / "out")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    assert project.diff(tmp_path / "out").equal
    assert second["digest"] == project.cook(tmp_path / "again")["digest"]


def test_cook_replaces_an_earlier_bundle(tmp_path):
    project = stagecraft.Project.open(example("crosswalk-demo"))
    first = project.cook(tmp_path / "out", seed=1)
    second = project.cook(tmp_path / "out")
    assert first["digest"] != second["digest"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    # The written bundle reads back: its diff against the project is empty.
    assert project.diff(tmp_path / "out").equal
