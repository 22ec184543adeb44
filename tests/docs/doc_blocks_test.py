#!/usr/bin/env python3
"""Tests of doc_blocks.py: which blocks it runs, how it compiles them, and
that a broken program or configuration fails it.

    doc_blocks_test.py [-- RUNNER OPTIONS]

With the runner's options (everything but --work and the documents), the
fixtures in fixtures/ are also run end to end.
"""

import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import doc_blocks  # noqa: E402

RUNNER_OPTIONS = []
if "--" in sys.argv:  # before the classes: skipUnless reads it when they are defined
    RUNNER_OPTIONS = sys.argv[sys.argv.index("--") + 1:]
    del sys.argv[sys.argv.index("--"):]


def blocks_of(text):
    with tempfile.TemporaryDirectory() as d:
        doc = Path(d) / "doc.md"
        doc.write_text(text)
        return doc_blocks.parse_blocks(doc)


class Classification(unittest.TestCase):
    def test_kinds(self):
        blocks = blocks_of("```c\nint main(void) { return 0; }\n```\n"
                           "```cpp\nint main(int argc, char** argv) {}\n```\n"
                           "```fortran\n  program counter\n  end program\n```\n"
                           "```ini\n[basic]\nnode_size = 1\n```\n"
                           "```c\nFTI_Checkpoint(1, FTI_L1);\n```\n"
                           "```fortran\ncall FTI_Protect(0, step, ierr)\n```\n"
                           "```ini\n[restart]\nfailure = 0\n```\n"
                           "```\nint main(void) {}\n```\n")
        self.assertEqual([b.kind for b in blocks], ["program", "program", "program", "config", None, None, None, None])

    def test_skip_marker_on_the_line_before_the_fence(self):
        blocks = blocks_of("<!-- doc-test: skip -->\n\n```c\nint main(void) {}\n```\n\n```c\nint main(void) {}\n```\n")
        self.assertEqual([b.skipped for b in blocks], [True, False])

    def test_indented_fence_and_line_numbers(self):
        blocks = blocks_of("- item\n\n  ```ini\n  [basic]\n  node_size = 2\n  ```\n")
        self.assertEqual(len(blocks), 1)
        self.assertEqual(blocks[0].line, 3)
        self.assertEqual(blocks[0].text, "[basic]\nnode_size = 2\n")


class Commands(unittest.TestCase):
    def test_compile_command_keeps_the_documents_options(self):
        program, *later = blocks_of("```c\nint main(void) {}\n```\n"
                                    "```sh\nmpicc -std=c99 example.c -lmlckpt -o example\n```\n")
        command = doc_blocks.find_compile_command(program, later)
        build = doc_blocks.Build(["/inc"], "/mod", "/lib", "/flib", ["-fsanitize=address"], "mpiexec", "loader")
        args = build.compile_args(command, "c", "/w/app.c", "/w/app")
        self.assertEqual(args[:2], ["mpicc", "-std=c99"])
        self.assertNotIn("example.c", args)
        self.assertNotIn("example", args)
        self.assertIn("-fsanitize=address", args)
        self.assertEqual(args[-1], "-lmlckpt")

    def test_pkg_config_is_replaced_by_the_build_tree(self):
        build = doc_blocks.Build([], "/mod", "/lib", "/flib", [], "mpiexec", "loader")
        args = build.compile_args("mpifort app.f90 $(pkg-config --cflags --libs mlckpt-fortran) -o counter",
                                  "fortran", "/w/app.f90", "/w/app")
        self.assertNotIn("pkg-config", " ".join(args))
        self.assertIn("-I/mod", args)
        self.assertIn("-lmlckpt_fortran", args)

    def test_launch_ranks_and_arguments(self):
        later = blocks_of("```sh\nmpicc app.c\nmpirun -np 4 ./example config.fti   # four ranks\n```\n")
        self.assertEqual(doc_blocks.find_launch(later), (4, ["config.fti"]))
        self.assertEqual(doc_blocks.find_launch([]), (None, []))

    def test_directories_move_into_the_work_directory(self):
        text = "[basic]\nckpt_dir  = /local/ckpt   ; node-local\nnode_size = 2\n"
        moved = doc_blocks.relocate_directories(text, Path("/w"))
        self.assertIn("ckpt_dir  = /w/ckpt_dir\n", moved)
        self.assertIn("node_size = 2\n", moved)


@unittest.skipUnless(RUNNER_OPTIONS, "needs the runner's options (see the docstring)")
class Fixtures(unittest.TestCase):
    def run_fixture(self, name):
        with tempfile.TemporaryDirectory() as work:
            result = subprocess.run([sys.executable, str(HERE / "doc_blocks.py"), *RUNNER_OPTIONS, "--work", work,
                                     str(HERE / "fixtures" / name)], capture_output=True, text=True, timeout=300)
        return result, doc_blocks.parse_blocks(HERE / "fixtures" / name)

    def test_broken_programs_fail(self):
        result, blocks = self.run_fixture("broken_programs.md")
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        no_compile, bad_run, skipped, _fragment, _launch = blocks
        self.assertIn(f"FAILED {no_compile.name}: does not compile", result.stdout)
        self.assertIn(f"FAILED {bad_run.name}: the fresh run failed", result.stdout)
        self.assertIn(f"{skipped.name}: c program, marked skip", result.stdout)
        self.assertIn("2 complete blocks, 2 failed", result.stdout)

    def test_refused_configuration_fails(self):
        result, (config,) = self.run_fixture("broken_config.md")
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        self.assertIn(f"FAILED {config.name}: FTI_Init refuses it", result.stdout)
        self.assertIn("verbosity = 'high'", result.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
