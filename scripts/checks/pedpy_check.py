"""Loads a `stagecraft simulate --trajectories x.sqlite` file with PedPy's JuPedSim loader and
checks what PedPy computes from it against what the CLI reported.

usage: pedpy_check.py TRAJECTORIES.sqlite REPORT.json

Asserts: the rows, agents and sampled frames PedPy loads equal the CLI's `trajectories` summary;
the frame rate is 1 / (fixed step x N); the walkable area is one polygon holding every position;
individual speeds are finite with a walking median; the classic density profile of every frame
counts exactly that frame's pedestrians (sum of cell densities x cell area) and the speed profile
is finite where it is defined; the classic density in a box on the north sidewalk is finite.
"""

import json
import math
import pathlib
import sys

import numpy as np
import pedpy
import shapely
from pedpy import (
    DensityMethod,
    MeasurementArea,
    SpeedCalculation,
    SpeedMethod,
    compute_classic_density,
    compute_density_profile,
    compute_individual_speed,
    compute_speed_profile,
    load_trajectory_from_jupedsim_sqlite,
    load_walkable_area_from_jupedsim_sqlite,
)

GRID_SIZE_M = 1.0


def fail(message):
    print(f"pedpy_check: FAILED: {message}", file=sys.stderr)
    sys.exit(1)


def check(condition, message):
    if not condition:
        fail(message)


def main():
    sqlite_path, report_path = pathlib.Path(sys.argv[1]), sys.argv[2]
    with open(report_path, encoding="utf-8") as handle:
        report = json.load(handle)
    summary = report["trajectories"]

    traj = load_trajectory_from_jupedsim_sqlite(trajectory_file=sqlite_path)
    walkable = load_walkable_area_from_jupedsim_sqlite(trajectory_file=sqlite_path)
    data = traj.data
    check(len(data) == summary["rows"], f"{len(data)} rows, the CLI wrote {summary['rows']}")
    # One trajectory per continuous presence: a ped readmitted from the pool starts a new one.
    check(data["id"].nunique() >= summary["agents"], "fewer trajectories than the CLI's agents")
    check(
        data["frame"].nunique() == summary["frames_with_rows"],
        f"{data['frame'].nunique()} frames, the CLI wrote {summary['frames_with_rows']} with agents",
    )
    expected_fps = 1.0 / (report["fixed_step_s"] * summary["every_frames"])
    check(math.isclose(traj.frame_rate, expected_fps), f"frame rate {traj.frame_rate}")

    polygon = walkable.polygon
    check(polygon.geom_type == "Polygon" and polygon.area > 0, "walkable area is no polygon")
    outside = (~shapely.covers(polygon, data["point"].values)).sum()
    check(outside == 0, f"{outside} positions lie outside the walkable area")

    speeds = compute_individual_speed(
        traj_data=traj,
        frame_step=2,
        speed_calculation=SpeedCalculation.BORDER_SINGLE_SIDED,
    )
    # A speed needs samples on one side of its frame: only a presence shorter than the window
    # (a ped pooled again right after its return) may have none.
    lengths = data.groupby("id").size()
    undefined = speeds.loc[~np.isfinite(speeds["speed"]), "id"].unique()
    check(len(speeds) > 0, "no individual speeds")
    check(
        all(lengths[i] <= 2 for i in undefined),
        f"undefined speeds on trajectories longer than the window: {list(undefined)[:5]}",
    )
    speeds = speeds[np.isfinite(speeds["speed"])]
    fastest = float(speeds["speed"].max())
    check(fastest < 10.0, f"an individual speed of {fastest} m/s: a trajectory jumps")
    median_speed = float(speeds["speed"].median())
    check(0.5 < median_speed < 2.0, f"median individual speed {median_speed} m/s")

    profile_data = speeds.merge(data, on=["id", "frame"])
    densities = compute_density_profile(
        data=profile_data,
        walkable_area=walkable,
        grid_size=GRID_SIZE_M,
        density_method=DensityMethod.CLASSIC,
    )
    frames = sorted(profile_data["frame"].unique())
    check(len(densities) == len(frames), f"{len(densities)} density profiles, {len(frames)} frames")
    for frame, profile in zip(frames, densities):
        check(np.isfinite(profile).all(), f"density profile of frame {frame} not finite")
        peds = int((profile_data["frame"] == frame).sum())
        counted = float(profile.sum()) * GRID_SIZE_M * GRID_SIZE_M
        check(math.isclose(counted, peds, abs_tol=1e-6), f"frame {frame}: {counted} != {peds} peds")
    speed_profiles = compute_speed_profile(
        data=profile_data,
        walkable_area=walkable,
        grid_size=GRID_SIZE_M,
        speed_method=SpeedMethod.MEAN,
    )
    check(len(speed_profiles) == len(frames), "one speed profile per frame")
    defined = np.concatenate([p[np.isfinite(p)] for p in speed_profiles])
    check(defined.size > 0, "no speed profile cell is defined")
    mean_profile_speed = float(defined[defined > 0].mean())
    check(0.3 < mean_profile_speed < 2.5, f"mean profile speed {mean_profile_speed} m/s")

    xmin, ymin, xmax, ymax = polygon.bounds
    box = shapely.box(xmin + 1.0, ymax - 2.0, xmax - 1.0, ymax)
    density = compute_classic_density(traj_data=traj, measurement_area=MeasurementArea(box))
    check(np.isfinite(density["density"]).all(), "classic density not finite")
    check(float(density["density"].max()) > 0, "nobody in the north sidewalk box")

    print(
        f"pedpy {pedpy.__version__}: {len(data)} rows, {summary['agents']} agents, "
        f"{len(frames)} profile frames at {traj.frame_rate} fps; median speed "
        f"{median_speed:.3f} m/s, mean profile speed {mean_profile_speed:.3f} m/s, peak classic "
        f"density {float(density['density'].max()):.3f} /m², walkable area {polygon.area:.1f} m²"
    )


if __name__ == "__main__":
    main()
