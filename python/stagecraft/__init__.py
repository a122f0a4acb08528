"""Stagecraft from Python: open, check, generate, cook and diff projects; step simulations.

    import stagecraft
    project = stagecraft.Project.open("projects/street-block")
    generation = project.generate()            # digests equal `stagecraft generate`'s
    sim = stagecraft.Simulation(project, "crosswalk-rush")
    sim.step(300)
    agents = sim.agents()                      # NumPy structured array of the Motion Frames

See docs/python.md.
"""

from ._stagecraft import (
    AGENT_STATES,
    TIERS,
    Diagnostic,
    Diff,
    Generation,
    Project,
    ProjectError,
    Simulation,
    Snapshot,
    StagecraftError,
    _bench_world,
    cook_cached,
    cook_plan,
)

__all__ = [
    "AGENT_STATES",
    "TIERS",
    "Diagnostic",
    "Diff",
    "Generation",
    "Project",
    "ProjectError",
    "Simulation",
    "Snapshot",
    "StagecraftError",
    "cook_cached",
    "cook_plan",
    "id_hex",
]


def id_hex(identity):
    """A persistent scatter identity (the `id` field of `Generation.placements`) spelt as the
    command line spells it: `0x` and 16 hex digits."""
    return f"{int(identity):#018x}"
