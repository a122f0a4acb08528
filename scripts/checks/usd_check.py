"""Opens an exported .usda with Pixar's USD and checks it against the .glb's instance ids.

Usage: usd_check.py FILE.usda IDS.json

Checks: the layer opens; up axis Y and 1 metre per unit; every PointInstancer has as many ids,
positions, orientations, scales and prototype indices as instances, prototypes that resolve, and
`primvars:stagecraft:identity` equal to its int64 `ids` rendered in hex; the instances of all
instancers, in order, have exactly the ids of the glTF export (IDS.json).
"""

import json
import sys

from pxr import Usd, UsdGeom


def hex_id(value):
    return f"{value & 0xFFFFFFFFFFFFFFFF:#018x}"


def main(usda, ids_json):
    expected = json.load(open(ids_json, encoding="utf-8"))
    stage = Usd.Stage.Open(usda)
    problems = []
    if UsdGeom.GetStageUpAxis(stage) != UsdGeom.Tokens.y:
        problems.append(f"up axis is {UsdGeom.GetStageUpAxis(stage)}, not Y")
    if UsdGeom.GetStageMetersPerUnit(stage) != 1.0:
        problems.append(f"metres per unit is {UsdGeom.GetStageMetersPerUnit(stage)}")
    found = []
    instancers = 0
    for prim in stage.Traverse():
        if not prim.IsA(UsdGeom.PointInstancer):
            continue
        instancers += 1
        instancer = UsdGeom.PointInstancer(prim)
        ids = list(instancer.GetIdsAttr().Get() or [])
        n = len(instancer.GetProtoIndicesAttr().Get() or [])
        columns = {
            "ids": len(ids),
            "positions": len(instancer.GetPositionsAttr().Get() or []),
            "orientations": len(instancer.GetOrientationsAttr().Get() or []),
            "scales": len(instancer.GetScalesAttr().Get() or []),
        }
        for column, count in columns.items():
            if count != n:
                problems.append(f"{prim.GetPath()}: {count} {column} for {n} instances")
        for target in instancer.GetPrototypesRel().GetTargets():
            if not stage.GetPrimAtPath(target).IsValid():
                problems.append(f"{prim.GetPath()}: prototype {target} does not resolve")
        primvars = UsdGeom.PrimvarsAPI(prim)
        identity = list(primvars.GetPrimvar("stagecraft:identity").Get() or [])
        if identity != [hex_id(i) for i in ids]:
            problems.append(f"{prim.GetPath()}: stagecraft:identity differs from ids")
        for name in ("recipe", "stage", "family", "variant"):
            if not primvars.HasPrimvar(f"stagecraft:{name}"):
                problems.append(f"{prim.GetPath()}: no primvar stagecraft:{name}")
        found.extend(identity)
    if found != expected:
        problems.append(f"{len(found)} USD instances, {len(expected)} glTF instances; ids differ")
    for problem in problems:
        print(f"{usda}: {problem}", file=sys.stderr)
    print(f"{usda.rsplit('/', 1)[-1]}: {instancers} PointInstancers, {len(found)} instances "
          f"{'match' if not problems else 'DO NOT match'} the glTF ids")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
