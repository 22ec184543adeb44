#!/usr/bin/env python3
"""Generates the Fortran 2008 module `scr` from the description of scr.h.

    generate_scr_module.py --api scr_api.json --header scr.h --custom scr_custom.f90.in --out scr.f90

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


def ierror_wrapper(f):
    """The subroutine NAME(args..., ierror) over one C function."""
    params = [p for p in f["params"] if p != "void"]
    names = f.get("args", [])
    if len(names) != len(params):
        raise SystemExit(f"{f['name']}: 'args' must name each of its {len(params)} parameters")
    args = [Argument(f["name"], n, t) for n, t in zip(names, params)]
    lines = [f"  subroutine {f['name']}({', '.join(names + ['ierror'])})"]
    lines += [f"    {a.decl} :: {a.name}" for a in args]
    lines.append("    integer, intent(out) :: ierror")
    lines += [f"    {a.local}" for a in args if a.local]
    lines += [f"    {a.before}" for a in args if a.before]
    lines.append(f"    ierror = int(c_{f['name']}({', '.join(a.actual for a in args)}))")
    lines += [f"    {a.after}" for a in args if a.after]
    lines.append(f"  end subroutine {f['name']}")
    return "\n".join(lines)


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
    args = c_api_spec.argument_parser(__doc__).parse_args()
    api = c_api_spec.load_checked(args.api, args.header, "SCR_", C_TO_FORTRAN)
    c_api_spec.write_module(args, lambda custom: generate(api, custom))
    return 0


if __name__ == "__main__":
    sys.exit(main())
