#!/usr/bin/env python3
"""Peer benchmark: paper 000's notched plate (section 7.2.1) in Akantu (EPFL), extrinsic cohesive
elements inserted on the fly with the linear-softening law, explicit dynamics on the CPU. The
cleave side is scripts/bench/czm_peer_plate.lua; both read the mesh that
scripts/bench/notched_plate_mesh.py writes, and this file also draws both codes' crack patterns.
Not a cleave or CI dependency: Akantu comes from PyPI, in a virtual environment of its own:

    python3 -m venv /tmp/akvenv && /tmp/akvenv/bin/pip install akantu matplotlib
    python3 scripts/bench/notched_plate_mesh.py 48 plate48.msh
    nice -n 10 /tmp/akvenv/bin/python scripts/bench/akantu_notched_plate.py plate48.msh OUTDIR \
        [--steps 40000] [--dt 5e-10] [--sigma 129.6e6] [--every 100]
    /tmp/akvenv/bin/python scripts/bench/akantu_notched_plate.py --plot CRACKS.csv OUT.png TITLE
    /tmp/akvenv/bin/python scripts/bench/akantu_notched_plate.py --compare AKANTU_DIR CLEAVE_DIR OUT.png

The case, the same in both scripts: PMMA (E 3.24 GPa, nu 0.35, rho 1190, plane stress, 1 mm thick),
u_y = 0.015 y at t = 0 with the top and bottom edges held there, linear softening (Camacho-Ortiz)
with sigma_c = --sigma, G_c = 352.3 J/m^2 (delta_c = 2 G_c / sigma_c), beta = 1 (effective opening
sqrt(dn^2 + dt^2)), closing penalty E / shortest edge (Akantu: until an element has failed, its
default contact_after_breaking = false; cleave up to 8ced5e7: always), the stress checked every 10 steps.

OUTDIR/history.csv: every --every steps the cohesive element count, the crack tip (largest x of a
cohesive element's mid node), energies in J (Akantu's are per unit thickness: times 1 mm), the
seconds so far, and at the notch tip (x = 2 mm, y = 0) the largest sigma_yy at the Gauss points of
the elements around it and the normal stress Akantu's insertion check sees on the facet ahead of
it (the mean of both sides' stresses at the facet's Gauss points). OUTDIR/cracks.csv: the
cohesive elements' end points (deformed), rewritten at every record, so that a run stopped early
keeps its last; OUTDIR/cracks.png: the final ones drawn.
"""
import argparse
import os
import time

E, NU, RHO, THICKNESS = 3.24e9, 0.35, 1190.0, 1e-3
G_C, STRAIN, H, W, NOTCH = 352.3, 0.015, 4e-3, 16e-3, 2e-3

MATERIAL = """model solid_mechanics_model_cohesive [
  material elastic [
    name = pmma
    rho = {rho}
    E = {E}
    nu = {nu}
    Plane_Stress = true
  ]
  material cohesive_linear [
    name = cohesive
    sigma_c = {sigma}
    G_c = {G_c}
    beta = 1
    penalty = {penalty}
    contact_after_breaking = false
  ]
]
"""


def plot_cracks(csv_path, png_path, title):
    """The crack pattern: the cohesive elements' segments over the plate's outline and notch."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    segs = []
    with open(csv_path) as f:
        next(f)
        for line in f:
            x1, y1, x2, y2 = map(float, line.split(","))
            segs.append(((x1 * 1e3, y1 * 1e3), (x2 * 1e3, y2 * 1e3)))
    from matplotlib.collections import LineCollection
    fig, ax = plt.subplots(figsize=(8, 2.4), dpi=100)
    ax.plot([0, W * 1e3, W * 1e3, 0, 0], [-H / 2e-3, -H / 2e-3, H / 2e-3, H / 2e-3, -H / 2e-3], "k-", lw=0.8)
    ax.plot([0, NOTCH * 1e3], [0, 0], "k-", lw=2)
    ax.add_collection(LineCollection(segs, colors="tab:red", linewidths=0.6))
    ax.set_aspect("equal")
    ax.set_xlabel("x (mm)")
    ax.set_ylabel("y (mm)")
    ax.set_title(f"{title}: {len(segs)} cohesive elements", fontsize=9)
    fig.tight_layout()
    fig.savefig(png_path)


def read_history(path):
    import csv
    with open(path) as f:
        rows = list(csv.DictReader(f))
    return {k: [float(r[k]) for r in rows] for k in rows[0]}


def plot_compare(akantu_dir, cleave_dir, png_path):
    """Both codes' histories side by side: cohesive elements, crack tip, energies against time."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    runs = [("Akantu", read_history(os.path.join(akantu_dir, "history.csv")), "tab:blue"),
            ("cleave", read_history(os.path.join(cleave_dir, "history.csv")), "tab:red")]
    fig, ax = plt.subplots(1, 3, figsize=(12, 3.2), dpi=100)
    for name, h, colour in runs:
        t = [v * 1e6 for v in h["t"]]
        ax[0].plot(t, h["cohesive"], color=colour, label=name)
        ax[1].plot(t, [v * 1e3 for v in h["tip_x"]], color=colour, label=name)
        for key, style in (("kinetic", "-"), ("strain", "--"), ("dissipated", ":")):
            ax[2].plot(t, [v * 1e3 for v in h[key]], style, color=colour, label=f"{name} {key}")
    for a, label in zip(ax, ("cohesive elements", "crack tip x (mm)", "energy (mJ)")):
        a.set_xlabel("t (us)")
        a.set_ylabel(label)
        a.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(png_path)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("mesh")
    p.add_argument("outdir")
    p.add_argument("title", nargs="?", default="Akantu")
    p.add_argument("--steps", type=int, default=40000)
    p.add_argument("--dt", type=float, default=5e-10)
    p.add_argument("--sigma", type=float, default=129.6e6)
    p.add_argument("--every", type=int, default=100)
    p.add_argument("--check-every", type=int, default=10)
    p.add_argument("--plot", action="store_true", help="draw MESH (a cracks.csv) into OUTDIR (a .png)")
    p.add_argument("--compare", action="store_true",
                   help="draw the histories of MESH (Akantu's output folder) and OUTDIR (cleave's) into TITLE (a .png)")
    a = p.parse_args()
    if a.plot:
        plot_cracks(a.mesh, a.outdir, a.title)
        return
    if a.compare:
        plot_compare(a.mesh, a.outdir, a.title)
        return

    import akantu as aka
    import numpy as np

    os.makedirs(a.outdir, exist_ok=True)
    mesh = aka.Mesh(2)
    mesh.read(a.mesh)
    x0 = mesh.getNodes().copy()
    tri = mesh.getConnectivity(aka._triangle_6)
    # the closing penalty as cleave's default: E over the shortest element edge
    edges = np.concatenate([np.linalg.norm(x0[tri[:, k]] - x0[tri[:, (k + 1) % 3]], axis=1) for k in range(3)])
    penalty = E / edges.min()
    mat_path = os.path.join(a.outdir, "material.dat")
    with open(mat_path, "w") as f:
        f.write(MATERIAL.format(rho=RHO, E=E, nu=NU, sigma=a.sigma, G_c=G_C, penalty=penalty))
    aka.parseInput(mat_path)

    model = aka.SolidMechanicsModelCohesive(mesh)
    model.initFull(_analysis_method=aka._explicit_lumped_mass, _is_extrinsic=True)
    model.setTimeStep(a.dt)
    if a.dt > model.getStableTimeStep():
        raise SystemExit(f"--dt {a.dt:g} is above Akantu's stable time step {model.getStableTimeStep():g}")
    model.getDisplacement()[:, 1] = STRAIN * x0[:, 1]
    model.applyBC(aka.FixedValue(STRAIN * H / 2, aka._y), "top")
    model.applyBC(aka.FixedValue(-STRAIN * H / 2, aka._y), "bottom")
    model.assembleInternalForces()  # the stresses of the initial strain, for the first record

    # the notch tip, the elements around it and the mid-plane facet ahead of it
    tip = int(np.argmin(np.hypot(x0[:, 0] - NOTCH, x0[:, 1])))
    tip_elems = np.nonzero((tri[:, :3] == tip).any(axis=1))[0]
    fconn = mesh.getMeshFacets().getConnectivity(aka._segment_3)
    fmid = x0[fconn[:, :2]].mean(axis=1)
    ahead = [k for k in np.nonzero((fconn[:, :2] == tip).any(axis=1))[0]
             if abs(fmid[k, 1]) < 1e-12 and fmid[k, 0] > NOTCH]
    if len(ahead) != 1:
        raise SystemExit("the mesh has no single mid-plane facet ahead of the notch tip: not a notched_plate_mesh.py mesh")
    ahead = ahead[0]
    pmma = model.getMaterial("pmma")

    def tip_stresses():
        sig = pmma.getStress(aka._triangle_6).reshape(-1, 3, 4)  # (elements, Gauss points, 2 x 2)
        gp = sig[tip_elems][:, :, 3].max()
        fs = model.getStressOnFacets(aka._segment_3).reshape(-1, 2, 2, 4)  # (facets, Gauss points, sides, 2 x 2)
        facet = fs[ahead][:, :, 3].mean()  # sigma_yy = the normal stress on a facet along x
        return gp, facet

    def cohesive_segments():
        if mesh.getNbElement(type=aka._cohesive_2d_6) == 0:
            return np.zeros((0, 6), dtype=int)
        return mesh.getConnectivity(aka._cohesive_2d_6)

    def energies():
        e = {k: model.getEnergy(k) * THICKNESS for k in ("kinetic", "dissipated", "reversible", "contact")}
        e["strain"] = pmma.getPotentialEnergy() * THICKNESS
        return e

    def write_cracks(step):
        """cracks.csv: the cohesive elements now (rewritten at every record: a run stopped early keeps its last)"""
        x = mesh.getNodes() + model.getDisplacement()  # insertion adds nodes: not x0's size
        with open(os.path.join(a.outdir, "cracks.csv"), "w") as f:
            f.write(f"x1,y1,x2,y2 at step {step}\n")
            for c in cohesive_segments():  # one face of each cohesive element, corner to corner
                f.write(f"{x[c[0], 0]:.9g},{x[c[0], 1]:.9g},{x[c[1], 0]:.9g},{x[c[1], 1]:.9g}\n")

    hist = open(os.path.join(a.outdir, "history.csv"), "w")
    hist.write("step,t,cohesive,tip_x,kinetic,strain,cohesive_stored,dissipated,contact,external,total,"
               "seconds,tip_gauss_syy,tip_facet_syy\n")
    seconds, peak_gp, peak_facet = 0.0, 0.0, 0.0
    first = None  # the seconds of the first interval, as cleave's (which include its kernels' compilation)
    e0 = None
    for step in range(a.steps + 1):
        if step % a.every == 0 or step == a.steps:
            coh = cohesive_segments()
            tip_x = mesh.getNodes()[coh[:, 2], 0].max() if len(coh) else NOTCH  # node 2 of _cohesive_2d_6: a mid node
            e = energies()
            total = e["kinetic"] + e["strain"] + e["reversible"] + e["dissipated"] + e["contact"]
            e0 = total if e0 is None else e0
            gp, facet = tip_stresses()
            peak_gp, peak_facet = max(peak_gp, gp), max(peak_facet, facet)
            hist.write(f"{step},{step * a.dt:.6g},{len(coh)},{tip_x:.6g},{e['kinetic']:.8g},{e['strain']:.8g},"
                       f"{e['reversible']:.8g},{e['dissipated']:.8g},{e['contact']:.8g},0,{total:.8g},"
                       f"{seconds:.4f},{gp:.6g},{facet:.6g}\n")
            hist.flush()
            write_cracks(step)
            print(f"step {step}: {len(coh)} cohesive, tip {tip_x * 1e3:.3f} mm, total energy {total:.6g} J "
                  f"({(total - e0) / max(abs(e0), 1e-300):+.2e}), {seconds / max(step, 1) * 1e3:.2f} ms/step", flush=True)
        if step == a.steps:
            break
        t = time.perf_counter()
        if step % a.check_every == 0:
            model.checkCohesiveStress()
        model.solveStep("explicit_lumped")
        seconds += time.perf_counter() - t
        if step + 1 == a.every:
            first = seconds
    hist.close()

    coh = cohesive_segments()
    plot_cracks(os.path.join(a.outdir, "cracks.csv"), os.path.join(a.outdir, "cracks.png"), a.title)
    print(f"Akantu {aka.__version__}: {mesh.getNbElement(type=aka._triangle_6)} T6 elements, {a.steps} steps of "
          f"{a.dt:g} s in {seconds:.1f} s ({seconds / a.steps * 1e3:.2f} ms/step, "
          f"{(seconds - first) / (a.steps - a.every) * 1e3 if first is not None and a.steps > a.every else float('nan'):.2f} "
          f"after the first {a.every}), {len(coh)} cohesive elements, "
          f"peak sigma_yy at the notch tip: Gauss points {peak_gp / 1e6:.1f} MPa, facet check {peak_facet / 1e6:.1f} MPa")


if __name__ == "__main__":
    main()
