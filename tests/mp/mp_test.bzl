"""mp_test: runs a rank program under qmprun with a hard timeout."""

def mp_test(name, binary, ranks, geometry = "", config = "", env = {}, timeout_s = 120, args = [], size = "medium"):
    """A test that starts `ranks` copies of `binary` with qmprun.

    The job is killed after `timeout_s` seconds (qmprun --timeout); Bazel's
    own test timeout is the outer bound.
    """
    launcher_args = ["-n", str(ranks), "--timeout", str(timeout_s), "--tag-output"]
    if geometry:
        launcher_args += ["--geometry", geometry]
    data = ["//tools/qmprun:qmprun", binary]
    if config:
        launcher_args += ["--config", "$(location " + config + ")"]
        data.append(config)
    native.sh_test(
        name = name,
        size = size,
        srcs = ["//tests/mp:run_job.sh"],
        args = ["$(location //tools/qmprun:qmprun)"] + launcher_args + ["$(location " + binary + ")"] + args,
        data = data,
        env = env,
    )

def rank_program(name, srcs, deps = []):
    """A GoogleTest program every rank of an mp_test runs (tests/mp/rank_main.h)."""
    native.cc_binary(
        name = name,
        testonly = True,
        srcs = srcs,
        deps = ["//tests/mp:rank_main"] + deps,
    )
