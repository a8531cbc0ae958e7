"""mp_test: runs a rank program under qmprun with a hard timeout."""

# The job shapes every API is tested on: 1, 2 and 4 ranks, and 8 ranks as a
# ring, 4x2, 2x2x2 and 2x2x2x1 (ranks, qmprun --geometry).
LAYOUTS = [
    (1, ""),
    (2, ""),
    (4, ""),
    (8, "8"),
    (8, "4x2"),
    (8, "2x2x2"),
    (8, "2x2x2x1"),
]

def mp_test_layouts(name, binary, layouts = LAYOUTS, launcher = "//tools/qmprun:qmprun"):
    """One mp_test of `binary` per layout, named NAME_RANKS[_GEOMETRY]."""
    for (n, g) in layouts:
        mp_test(
            name = name + "_" + str(n) + ("_" + g if g else ""),
            binary = binary,
            geometry = g,
            ranks = n,
            launcher = launcher,
        )

def mp_test(name, binary, ranks, geometry = "", config = "", env = {}, timeout_s = 120, args = [], size = "medium",
            launcher = "//tools/qmprun:qmprun"):
    """A test that starts `ranks` copies of `binary` with qmprun (or its mpirun name).

    The job is killed after `timeout_s` seconds (qmprun --timeout); Bazel's
    own test timeout is the outer bound.
    """
    launcher_args = ["-np" if launcher.endswith("mpirun") else "-n", str(ranks), "--timeout", str(timeout_s), "--tag-output"]
    if geometry:
        launcher_args += ["--geometry", geometry]
    data = [launcher, binary]
    if config:
        launcher_args += ["--config", "$(location " + config + ")"]
        data.append(config)
    native.sh_test(
        name = name,
        size = size,
        srcs = ["//tests/mp:run_job.sh"],
        args = ["$(location " + launcher + ")"] + launcher_args + ["$(location " + binary + ")"] + args,
        data = data,
        env = env,
    )

def mp_test_runs(name, binary, runs, launcher = "//tools/qmprun:mpirun"):
    """One mp_test of `binary` per (suffix, ranks, config, env) of `runs`, named NAME_SUFFIX."""
    for (suffix, n, config, env) in runs:
        mp_test(
            name = name + "_" + suffix,
            binary = binary,
            config = config,
            env = env,
            launcher = launcher,
            ranks = n,
        )

def rank_program(name, srcs, deps = []):
    """A GoogleTest program every rank of an mp_test runs (tests/mp/rank_main.h)."""
    native.cc_binary(
        name = name,
        testonly = True,
        srcs = srcs,
        deps = ["//tests/mp:rank_main"] + deps,
        visibility = ["//tests:__subpackages__"],
    )

# The ofi provider (issue 28) over libfabric's tcp provider: the API of
# libfabric's verbs provider, on loopback and in network namespaces.
OFI = {"MESHMP_PROVIDER": "ofi", "MESHMP_OFI_PROVIDER": "tcp"}
