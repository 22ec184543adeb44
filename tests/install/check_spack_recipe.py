"""Checks the Spack recipe (packaging/spack/packages/mlckpt/package.py)
against the CMake project, which CI builds but Spack cannot (no network):
every variant maps to an option of CMakeLists.txt and every optional part
has a variant; every dependency the CMake project looks for is a
depends_on of the recipe; the FTI version it provides is the one the
installed FTIConfigVersion.cmake reports.

    check_spack_recipe.py REPOSITORY

Prints each disagreement and exits 1 when there is one.
"""
import ast
import pathlib
import re
import sys

# What cmake/MlckptDependencies.cmake and tests/CMakeLists.txt look for,
# and the Spack package that brings it.
DEPENDENCIES = {
    r"find_package\(MPI\b": "mpi",
    r"find_package\(Python3\b": "python",
    r"find_package\(OpenSSL\b": "openssl",
    r"find_library\(INIPARSER_LIBRARY\b": "iniparser",
    r"pkg_check_modules\(ISAL\b": "isa-l",
    r"pkg_check_modules\(BLOSC\b": "c-blosc",
    r"find_package\(zfp\b": "zfp",
    r"pkg_search_module\(HDF5\b": "hdf5",
    r"find_package\(GTest\b": "googletest",
    r"pkg_check_modules\(FUSE3\b": "libfuse",
}


def calls(tree, name):
    """The literal arguments of every call of `name` in the recipe."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if called == name:
                yield [a.value for a in node.args if isinstance(a, ast.Constant)]


def problems(repo):
    recipe = repo / "packaging/spack/packages/mlckpt/package.py"
    tree = ast.parse(recipe.read_text(encoding="utf-8"), str(recipe))
    cmake = (repo / "CMakeLists.txt").read_text(encoding="utf-8")
    options = set(re.findall(r"^option\((MLCKPT_\w+)", cmake, re.M))
    variants = {args[0] for args in calls(tree, "variant") if args}
    mapped = {args[0]: args[1] for args in calls(tree, "define_from_variant") if len(args) == 2}
    for option, variant in sorted(mapped.items()):
        if option not in options:
            yield f"{recipe.name}: define_from_variant({option!r}): CMakeLists.txt has no option {option}"
        if variant not in variants:
            yield f"{recipe.name}: define_from_variant({option!r}, {variant!r}): no variant {variant!r}"
    for option in sorted(options - {"MLCKPT_BUILD_TESTS", "MLCKPT_BUILD_EXAMPLES", "MLCKPT_BUILD_BENCH",
                                    "MLCKPT_SANITIZE", "MLCKPT_FUZZ", "MLCKPT_UNITY_CORE"}):
        if option not in mapped:
            yield f"{recipe.name}: the optional part {option} of CMakeLists.txt has no variant"
    for option in ("MLCKPT_BUILD_TESTS", "MLCKPT_BUILD_EXAMPLES", "MLCKPT_BUILD_BENCH"):
        if not any(args and args[0] == option for args in calls(tree, "define")):
            yield f"{recipe.name}: {option} is not set (the project's default would build it)"

    depends = {re.split(r"[@+~ ]", args[0])[0] for args in calls(tree, "depends_on") if args}
    looked_for = (repo / "cmake/MlckptDependencies.cmake").read_text(encoding="utf-8")
    looked_for += (repo / "tests/CMakeLists.txt").read_text(encoding="utf-8")
    for pattern, package in DEPENDENCIES.items():
        if re.search(pattern, looked_for) and package not in depends:
            yield f"{recipe.name}: the CMake project looks for {package} ({pattern}); the recipe has no depends_on"
    for found in re.findall(r"(?:find_package|pkg_check_modules|pkg_search_module)\((\w+)", looked_for):
        if not any(re.match(p.split("(")[1].replace("\\b", ""), found) for p in DEPENDENCIES):
            if found not in ("PkgConfig",):
                yield f"check_spack_recipe.py: CMake looks for {found}, which DEPENDENCIES does not map"

    packaging = (repo / "cmake/MlckptPackaging.cmake").read_text(encoding="utf-8")
    fti = re.search(r'"FTI:FTI:([0-9.]+):', packaging)
    provided = [args[0] for args in calls(tree, "provides") if args]
    if not fti or f"fti@:{fti.group(1)}" not in provided:
        yield f"{recipe.name}: provides {provided}; FTIConfigVersion.cmake reports FTI {fti and fti.group(1)}"


def main():
    found = list(problems(pathlib.Path(sys.argv[1])))
    for line in found:
        print(line)
    if not found:
        print("check_spack_recipe: the recipe agrees with the CMake project")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
