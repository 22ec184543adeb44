# Spack recipe for mlckpt, kept in mlckpt's own repository (a Spack package
# repository of its own, namespace "mlckpt"):
#
#   spack repo add <mlckpt checkout>/packaging/spack
#   spack install mlckpt            # or: spack develop --path <checkout> mlckpt@main
#   spack test run mlckpt
#
# mlckpt implements FTI's interface (fti.h, libfti, the Fortran module fti)
# and SCR's (scr.h, libscr): it provides the virtual package "fti", so that a
# recipe's depends_on("fti") resolves to it. SCR is a real package in Spack's
# builtin repository; a site points it at an installed mlckpt with an external
# in packages.yaml (see packaging/spack/README.md).

import os

from spack.package import *


class Mlckpt(CMakePackage):
    """Multi-level checkpoint/restart library for MPI applications: node-local
    checkpoints, partner copies, Reed-Solomon encoding and the parallel file
    system (levels 1 to 4). It is a drop-in for FTI (fti.h, libfti, the
    Fortran module fti) and implements SCR's interface (scr.h, libscr), with
    C++ wrappers of its own."""

    homepage = "https://github.com/mlckpt/mlckpt"
    git = "https://github.com/mlckpt/mlckpt.git"

    # No release has been published yet: the branch only. A release adds
    # version("X.Y.Z", sha256=...) of its tarball, X.Y.Z being the version
    # of capi/include/fti.h (MLCKPT_VERSION_*). "spack develop" builds a
    # local checkout whatever the version says.
    version("main", branch="main")

    variant("fortran", default=True, description="Build the Fortran modules fti and scr")
    variant("hdf5", default=True, description="Build HDF5 checkpoints (ckpt_io = 5); needs a parallel HDF5")
    variant("scr", default=True, description="Build SCR's interface (scr.h, libscr)")

    # The project's own default build type (CMakePackage's is Release).
    variant(
        "build_type",
        default="RelWithDebInfo",
        description="CMake build type",
        values=("Debug", "Release", "RelWithDebInfo", "MinSizeRel"),
    )

    generator("ninja")

    depends_on("cmake@3.22:", type="build")
    depends_on("ninja", type="build")
    depends_on("pkgconfig", type="build")
    # Generates the Fortran module from the C header (fortran/generate_*.py).
    depends_on("python@3:", type="build")

    depends_on("mpi")
    depends_on("hdf5+mpi", when="+hdf5")
    depends_on("isa-l")
    depends_on("iniparser")
    depends_on("openssl")
    depends_on("c-blosc")
    depends_on("zfp")
    depends_on("googletest", type="test")
    # The power-loss tests mount a FUSE 3 file system; without libfuse (or
    # without /dev/fuse where the tests run) they are not built or not run.
    depends_on("libfuse@3:", type="test")

    # FTI's interface, the version mlckpt's FTIConfigVersion.cmake reports.
    provides("fti@:1.6")

    # The test suite covers every part (CMakeLists.txt refuses
    # MLCKPT_BUILD_TESTS=ON with a part left out).
    def cmake_args(self):
        spec = self.spec
        run_suite = self.run_tests and spec.satisfies("+fortran+hdf5+scr")
        args = [
            self.define_from_variant("MLCKPT_FORTRAN", "fortran"),
            self.define_from_variant("MLCKPT_HDF5", "hdf5"),
            self.define_from_variant("MLCKPT_SCR", "scr"),
            self.define("MLCKPT_BUILD_TESTS", run_suite),
            self.define("MLCKPT_BUILD_EXAMPLES", False),
            self.define("MLCKPT_BUILD_BENCH", False),
            self.define("MPI_C_COMPILER", spec["mpi"].mpicc),
            self.define("MPI_CXX_COMPILER", spec["mpi"].mpicxx),
        ]
        if spec.satisfies("+fortran"):
            args.append(self.define("MPI_Fortran_COMPILER", spec["mpi"].mpifc))
        # CMake looks for HDF5's pkg-config module named after the MPI first
        # (Debian's hdf5-openmpi, hdf5-mpich), then for hdf5. An HDF5 that
        # Spack built installs hdf5.pc only: name it, so that a system's
        # hdf5-openmpi.pc is not taken instead. A system HDF5 declared as an
        # external keeps the project's choice.
        if spec.satisfies("+hdf5") and not spec["hdf5"].external:
            args.append(self.define("MLCKPT_HDF5_MODULE", "hdf5"))
        return args

    @property
    def libs(self):
        return find_libraries("libmlckpt", root=self.prefix, shared=True, recursive=True)

    # ---------------------------------------------------------------------
    # Stand-alone tests (spack test run mlckpt), on the installed tree:
    # <prefix>/share/mlckpt/examples holds a CMake project of the heatdis
    # examples (built with find_package(mlckpt)) and crash_restart.sh, which
    # runs a program at 4 ranks uninterrupted, kills one rank of a second
    # run, relaunches it and compares the restarted result bit for bit.
    # ---------------------------------------------------------------------

    @property
    def _examples_dir(self):
        return join_path(self.prefix.share, "mlckpt", "examples")

    def _mpi_tool(self, *names):
        """An MPI program of the spec's MPI (mpicc, mpiexec, ...)."""
        tool = which(*names, path=[self.spec["mpi"].prefix.bin])
        if tool is None:
            raise SkipTest(f"none of {', '.join(names)} in {self.spec['mpi'].prefix.bin}")
        return tool

    def _mpi_env(self):
        """Lets Open MPI run as root and oversubscribe the cores."""
        env = dict(os.environ)
        env.update(
            {
                "OMPI_ALLOW_RUN_AS_ROOT": "1",
                "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                "OMPI_MCA_rmaps_base_oversubscribe": "1",
                "PRTE_MCA_rmaps_default_mapping_policy": ":oversubscribe",
            }
        )
        return env

    def _build_examples(self, target):
        """Configures (once per test run) and builds one target of the
        installed examples with the MPI compiler wrappers; returns its path."""
        if not os.path.isfile(join_path(self._examples_dir, "CMakeLists.txt")):
            raise SkipTest(f"{self._examples_dir} has no CMakeLists.txt (installed examples missing)")
        spec = self.spec
        build_dir = join_path(os.getcwd(), "examples-build")
        cmake = which(spec["cmake"].prefix.bin.cmake, "cmake")
        if not os.path.isfile(join_path(build_dir, "CMakeCache.txt")):
            args = [
                "-S",
                self._examples_dir,
                "-B",
                build_dir,
                f"-DCMAKE_PREFIX_PATH={self.prefix}",
                f"-DCMAKE_C_COMPILER={spec['mpi'].mpicc}",
                f"-DCMAKE_CXX_COMPILER={spec['mpi'].mpicxx}",
                "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
            ]
            if spec.satisfies("+fortran"):
                args.append(f"-DCMAKE_Fortran_COMPILER={spec['mpi'].mpifc}")
            cmake(*args)
        cmake("--build", build_dir, "-j2", "--target", target)
        exe = join_path(build_dir, target)
        if not os.path.isfile(exe):
            found = find(build_dir, target)
            exe = found[0] if found else exe
        assert os.path.isfile(exe), f"{target} was not built in {build_dir}"
        return exe

    def _crash_restart(self, target, level):
        """Builds TARGET and runs crash_restart.sh on it at LEVEL."""
        exe = self._build_examples(target)
        script = join_path(self._examples_dir, "crash_restart.sh")
        if not os.path.isfile(script):
            raise SkipTest(f"{script} is not installed")
        mpiexec = self._mpi_tool("mpiexec", "mpirun")
        bash = which("bash")
        out = bash(
            script,
            "--level",
            str(level),
            "--mpiexec",
            mpiexec.path,
            exe,
            output=str.split,
            error=str.split,
            env=self._mpi_env(),
            timeout=900,
        )
        lines = [ln for ln in out.strip().splitlines() if ln.strip()]
        assert lines and lines[-1].startswith(
            "crash_restart: PASS"
        ), f"{target} at level {level}: no 'crash_restart: PASS' line"

    def test_crash_restart_c(self):
        """build heatdis (C) from the installed examples, crash and restart it at level 2"""
        self._crash_restart("heatdis", 2)

    def test_crash_restart_cxx(self):
        """build heatdis_cpp (C++ wrappers), crash and restart it at level 1"""
        self._crash_restart("heatdis_cpp", 1)

    def test_crash_restart_fortran(self):
        """build heatdis_f90 (use fti), crash and restart it at level 4"""
        if not self.spec.satisfies("+fortran"):
            raise SkipTest("built without Fortran (~fortran)")
        self._crash_restart("heatdis_f90", 4)

    _fti_program = r"""/* A plain FTI program: protect, checkpoint, finalize. */
#include <fti.h>
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    if (argc < 2 || FTI_Init(argv[1], MPI_COMM_WORLD) != FTI_SCES) {
        fprintf(stderr, "fti_plain: FTI_Init failed\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int rank, size;
    MPI_Comm_rank(FTI_COMM_WORLD, &rank);
    MPI_Comm_size(FTI_COMM_WORLD, &size);
    int it = 0;
    double data[64];
    for (int i = 0; i < 64; i++) data[i] = rank + i;
    FTI_Protect(0, &it, 1, FTI_INTG);
    FTI_Protect(1, data, 64, FTI_DBLE);
    if (FTI_Status() != 0 && FTI_Recover() != FTI_SCES) MPI_Abort(MPI_COMM_WORLD, 2);
    for (; it < 20; it++) {
        for (int i = 0; i < 64; i++) data[i] = 0.5 * data[i] + it;
        if (it == 10 && FTI_Checkpoint(1, 1) != FTI_DONE) {
            fprintf(stderr, "fti_plain: FTI_Checkpoint failed\n");
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
    }
    double sum = 0.0, total = 0.0;
    for (int i = 0; i < 64; i++) sum += data[i];
    MPI_Allreduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, FTI_COMM_WORLD);
    if (rank == 0) printf("fti_plain: %d ranks, result %.17g\n", size, total);
    FTI_Finalize();
    MPI_Finalize();
    return 0;
}
"""

    _fti_config = """[basic]
ckpt_dir  = ./local
glbl_dir  = ./global
meta_dir  = ./meta
node_size = 2
ckpt_l1   = 0
ckpt_l2   = 0
ckpt_l3   = 0
ckpt_l4   = 0
verbosity = 2
ckpt_io   = 1
group_size = 2
head      = 0

[restart]
failure   = 0
exec_id   =

[advanced]
local_test = 1
"""

    def test_fti_flags(self):
        """compile a plain FTI program with FTI's flags (mpicc -I<prefix>/include -L<lib> -lfti) and run it"""
        mpicc = self._mpi_tool("mpicc")
        libs = find_libraries("libfti", root=self.prefix, shared=True, recursive=True)
        assert libs, f"no libfti.so under {self.prefix}"
        libdir = libs.directories[0]
        work = join_path(os.getcwd(), "fti-flags")
        mkdirp(work)
        with working_dir(work):
            with open("fti_plain.c", "w") as f:
                f.write(self._fti_program)
            with open("fti_plain.fti", "w") as f:
                f.write(self._fti_config)
            mpicc(
                "fti_plain.c",
                "-o",
                "fti_plain",
                f"-I{self.prefix.include}",
                f"-L{libdir}",
                "-lfti",
                f"-Wl,-rpath,{libdir}",
                env=self._mpi_env(),
            )
            mpiexec = self._mpi_tool("mpiexec", "mpirun")
            # Oversubscribed through the environment: MPICH's launcher does
            # not know Open MPI's --oversubscribe.
            out = mpiexec(
                "-n",
                "4",
                "./fti_plain",
                "fti_plain.fti",
                output=str.split,
                error=str.split,
                env=self._mpi_env(),
                timeout=300,
            )
            assert "fti_plain: 4 ranks, result" in out, "fti_plain printed no result"
