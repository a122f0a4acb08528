"""`Project.generate`: placements as NumPy structured arrays, with identities and provenance."""

import math

import numpy as np
import pytest

import stagecraft
from conftest import example

FIELDS = ["id", "x_m", "y_m", "rotation_rad", "scale", "variant_index", "stage", "recipe", "family", "variant", "kind"]


@pytest.fixture(scope="module")
def pine():
    return stagecraft.Project.open(example("pine-clearing"))


def test_placements_are_a_structured_array(pine):
    placements = pine.generate().placements
    assert isinstance(placements, np.ndarray)
    assert list(placements.dtype.names) == FIELDS
    assert placements.dtype["id"] == np.dtype("<u8")
    assert placements.dtype["x_m"] == np.dtype("<f8")
    assert len(placements) > 100


def test_placement_counts_equal_the_stage_counts_of_the_cli(cli, pine):
    code, report = cli("generate", example("pine-clearing"), "--json")
    assert code == 0
    placements = pine.generate().placements
    for stage in report["recipes"][0]["stages"]:
        rows = placements[placements["stage"] == stage["stage"]]
        if stage["operator"] == "environment.scatter":
            assert len(rows) == stage["objects"]
            assert set(rows["kind"]) == {"Placements"}
        elif stage["operator"] == "environment.select-and-place":
            assert len(rows) == stage["objects"]
            assert set(rows["kind"]) == {"PlacedObjects"}
        else:
            assert len(rows) == 0


def test_placed_objects_carry_their_transforms_and_provenance(pine):
    placements = pine.generate().placements
    placed = placements[placements["kind"] == "PlacedObjects"]
    scattered = placements[placements["kind"] == "Placements"]
    assert len(placed) > 0
    assert set(placed["id"]) <= set(scattered["id"])
    assert (placed["rotation_rad"] >= 0).all() and (placed["rotation_rad"] < 2 * math.pi).all()
    assert len(set(placed["rotation_rad"])) > 1
    assert (placed["scale"] > 0).all()
    assert (scattered["rotation_rad"] == 0).all() and (scattered["scale"] == 1).all()
    assert set(placements["recipe"]) == {"pine-clearing"}
    # Positions are the scatter's: the same id sits at the same place in both stages.
    by_id = {int(r["id"]): (r["x_m"], r["y_m"]) for r in scattered}
    assert all(by_id[int(r["id"])] == (r["x_m"], r["y_m"]) for r in placed[:50])
    # Each variant name is the family's variant at variant_index.
    for family in set(placements["family"]):
        rows = placements[placements["family"] == family]
        names = {}
        for index, name in zip(rows["variant_index"], rows["variant"]):
            assert names.setdefault(int(index), str(name)) == str(name)
        assert all(names.values())


def test_identities_are_spelt_as_the_cli_spells_them(cli, pine):
    code, report = cli("diff", example("pine-clearing"), example("pine-clearing"), "--b-seed", 5, "--json")
    removed = [e for e in report["entries"] if e["change"] == "removed" and e["kind"] == "Placements"]
    assert removed
    placements = pine.generate().placements
    ids = {stagecraft.id_hex(i) for i in placements[placements["kind"] == "Placements"]["id"]}
    assert {e["key"] for e in removed} <= ids
    assert stagecraft.id_hex(0x1234) == "0x0000000000001234"


def test_overrides_false_generates_without_the_override_sets(pine):
    with_edits = pine.generate()
    without = pine.generate(overrides=False)
    assert with_edits.digests != without.digests
    assert pine.generate(overrides=True).digests == with_edits.digests


def test_one_recipe_and_unknown_recipes(pine):
    assert pine.generate(recipe="pine-clearing").recipes == ["pine-clearing"]
    with pytest.raises(stagecraft.StagecraftError) as raised:
        pine.generate(recipe="nope")
    assert "no recipe `nope`" in str(raised.value)


def test_a_project_without_placements_gives_an_empty_array():
    placements = stagecraft.Project.open(example("crosswalk-demo")).generate().placements
    assert len(placements) == 0
    assert list(placements.dtype.names) == FIELDS


def test_diff_between_seeds_and_with_itself(pine):
    assert pine.diff(pine).equal
    assert pine.diff(pine).counts["unchanged"] > 0
    other = pine.diff(pine, seed=1, other_seed=2)
    assert not other.equal
    assert {e["change"] for e in other.entries} <= {"added", "removed", "moved", "changed"}
