#!/usr/bin/env python3
"""Generates the Fortran 2008 module `scr` from the description of scr.h.

    generate_scr_module.py --api scr_api.json --header scr.h --custom scr_custom.f90.in --out scr.f90
        --externals scr_external.f90 --include scrf.h

Like the module `fti` (generate_fti_module.py, with which it shares
c_api_spec.py), it first checks the description against scr.h and exits
with status 1, listing each disagreement, when they differ.

SCR's Fortran calls are subroutines whose last argument is IERROR; the
other arguments are the C parameters in their order, as Fortran types:
int = INTEGER in, int* = INTEGER out, const char* = CHARACTER(*) in (its
trailing blanks trimmed), char* = CHARACTER(*) out (blank-padded; when the
value does not fit, IERROR is not SCR_SUCCESS). The hand-written part
(--custom, declarations, a line `contains`, procedures) has the calls whose
Fortran form is not that (SCR_Config, SCR_Get_version) and the helpers the
generated ones call (c_string, string_out).

It also writes the same calls as external subroutines that call the
module's (--externals) and SCR's include file scrf.h with the constants
(--include), for programs written for SCR's own Fortran interface.
"""

import sys

import c_api_spec

# How the bind(C) interfaces declare each C type.
C_TO_FORTRAN = {
    "int": "integer(c_int), value",
    "int*": "integer(c_int)",
    "const char*": "character(kind=c_char), dimension(*)",
    "char*": "character(kind=c_char), dimension(*)",
}
C_RESULT = {"int": "integer(c_int)", "const char*": "type(c_ptr)", "char*": "type(c_ptr)"}


class Argument:
    """One argument of a generated subroutine: its declaration, the local
    C variable it needs, what is passed to C and what is copied back."""

    def __init__(self, function, name, ctype):
        self.name = name
        upper = function.upper()
        if ctype == "int":
            self.decl, self.local, self.before = "integer, intent(in)", None, None
            self.actual, self.after = f"int({name}, c_int)", None
        elif ctype == "int*":
            self.decl = "integer, intent(out)"
            self.local, self.before = f"integer(c_int) :: {name}_c", f"{name}_c = 0"
            self.actual, self.after = f"{name}_c", f"{name} = int({name}_c)"
        elif ctype == "const char*":
            self.decl, self.local, self.before = "character(len=*), intent(in)", None, None
            self.actual, self.after = f"c_string({name})", None
        elif ctype == "char*":
            self.decl = "character(len=*), intent(out)"
            self.local = f"character(kind=c_char) :: {name}_c(SCR_MAX_FILENAME)"
            self.before, self.actual = f"{name}_c(1) = c_null_char", f"{name}_c"
            self.after = f"call string_out('{upper}', '{name.upper()}', {name}_c, {name}, ierror)"
        else:
            raise SystemExit(f"{function}: no Fortran argument for the C type '{ctype}'")


def fortran_arguments(f):
    """The Fortran arguments of a bound function but IERROR: its C
    parameters named by 'args', or for a 'custom' one 'fortran_args'
    ([name, C type whose Fortran form it has], ...)."""
    if f["fortran"] == "custom":
        return [Argument(f["name"], n, t) for n, t in f["fortran_args"]]
    params = [p for p in f["params"] if p != "void"]
    names = f.get("args", [])
    if len(names) != len(params):
        raise SystemExit(f"{f['name']}: 'args' must name each of its {len(params)} parameters")
    return [Argument(f["name"], n, t) for n, t in zip(names, params)]


def declarations(name, args):
    """SUBROUTINE NAME(args..., ierror) and its argument declarations."""
    lines = [f"subroutine {name}({', '.join([a.name for a in args] + ['ierror'])})"]
    lines += [f"  {a.decl} :: {a.name}" for a in args]
    lines.append("  integer, intent(out) :: ierror")
    return lines


def ierror_wrapper(f):
    """The module's subroutine NAME(args..., ierror) over one C function."""
    args = fortran_arguments(f)
    lines = ["  " + line for line in declarations(f["name"], args)]
    lines += [f"    {a.local}" for a in args if a.local]
    lines += [f"    {a.before}" for a in args if a.before]
    lines.append(f"    ierror = int(c_{f['name']}({', '.join(a.actual for a in args)}))")
    lines += [f"    {a.after}" for a in args if a.after]
    lines.append(f"  end subroutine {f['name']}")
    return "\n".join(lines)


def external(f):
    """The external subroutine of the same name for programs that include
    scrf.h instead of using the module: it calls the module's."""
    args = fortran_arguments(f)
    head = declarations(f["name"].lower(), args)
    return "\n".join([head[0], f"  use scr, only: module_procedure => {f['name']}", "  implicit none"] + head[1:] +
                     [f"  call module_procedure({', '.join([a.name for a in args] + ['ierror'])})",
                      f"end subroutine {f['name'].lower()}"])


def generate_externals(api):
    bound = [f for f in api["functions"] if f["fortran"] != "none"]
    return f"""! Generated at build time by fortran/generate_scr_module.py from
! fortran/scr_api.json. Do not edit: edit that.
!
! SCR's Fortran calls as external subroutines (library mlckpt_scrf, -lscrf),
! for programs written for SCR that INCLUDE 'scrf.h' and call them without
! an interface; each calls the subroutine of the module scr.

{chr(10).join(chr(10) + external(f) for f in bound).lstrip()}
"""


def generate_include(api):
    """scrf.h: the constants, in a form both fixed- and free-form sources
    can include (statements from column 7, comments from column 1)."""
    lines = ["! Generated at build time by fortran/generate_scr_module.py from",
             "! fortran/scr_api.json. Do not edit: edit that.",
             "!",
             "! SCR's constants for programs that INCLUDE 'scrf.h' and call",
             "! SCR_INIT etc. as external subroutines (link -lscrf). Programs",
             "! that USE the module scr have them from it: not both."]
    for c in api["constants"]:
        lines += [f"      INTEGER {c['name']}", f"      PARAMETER ({c['name']}={c['value']})"]
    if max(len(line) for line in lines) > 72:
        raise SystemExit("scrf.h: a line is longer than fixed form allows")
    return "\n".join(lines) + "\n"


def generate(api, custom_text):
    custom_spec, custom_body = c_api_spec.split_custom(custom_text)
    consts = "\n".join(f"  integer, parameter, public :: {c['name']} = {c['value']}" for c in api["constants"])
    bound = [f for f in api["functions"] if f["fortran"] != "none"]
    interfaces = "\n".join(c_api_spec.c_interface(f, C_TO_FORTRAN, C_RESULT) for f in bound)
    public = "\n".join(f"  public :: {f['name']}" for f in bound)
    wrappers = "\n\n".join(ierror_wrapper(f) for f in bound if f["fortran"] == "ierror")
    return f"""! Generated at build time by fortran/generate_scr_module.py from
! fortran/scr_api.json and fortran/scr_custom.f90.in, checked against scr.h.
! Do not edit: edit those.
!
! The SCR interface of mlckpt for Fortran: SCR's calls as subroutines whose
! last argument is IERROR (docs/fortran.md).
module scr
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: error_unit
  implicit none
  private

{consts}

{public}

{custom_spec}

  interface
{interfaces}
  end interface

contains

{wrappers}

{custom_body}

end module scr
"""


def main():
    ap = c_api_spec.argument_parser(__doc__)
    ap.add_argument("--externals", required=True, help="the external subroutines (Fortran source) to write")
    ap.add_argument("--include", required=True, help="the include file scrf.h to write")
    args = ap.parse_args()
    api = c_api_spec.load_checked(args.api, args.header, "SCR_", C_TO_FORTRAN)
    c_api_spec.write_module(args, lambda custom: generate(api, custom))
    for path, text in ((args.externals, generate_externals(api)), (args.include, generate_include(api))):
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
