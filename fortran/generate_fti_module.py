#!/usr/bin/env python3
"""Generates the Fortran 2008 module `fti` from the description of the C API.

    generate_fti_module.py --api fti_api.json --header fti.h --custom fti_custom.f90.in
        --integer-kinds "1 2 4 8 16" --real-kinds "4 8 10 16" --logical-kinds "1 2 4 8 16"
        --out fti.f90

Before writing anything it checks the description against fti.h (every
function, its result and parameter types, every constant, every type handle,
the members of every structure it mirrors as a bind(C) type)
and exits with status 1, listing each disagreement, when they differ: the
module can never drift from the C API it binds to. Standard library only.

The hand-written part (--custom) reads like a module body: declarations, a
line `contains`, procedures.
"""

import re
import sys

import c_api_spec

MAX_RANK = 7

# C types as the Fortran interfaces declare them (by value unless a pointer).
C_TO_FORTRAN = {
    "int": "integer(c_int), value",
    "double": "real(c_double), value",
    "fti_id_t": "integer(c_int), value",
    "int64_t": "integer(c_int64_t), value",
    "size_t": "integer(c_size_t), value",
    "bool": "logical(c_bool), value",
    "void*": "type(c_ptr), value",
    "const char*": "character(kind=c_char), dimension(*)",
    "char*": "character(kind=c_char), dimension(*)",
    "fti_id_t*": "integer(c_int)",
    "int*": "integer(c_int), dimension(*)",
    "FTIT_H5Group*": "type(c_ptr), value",
    "FTIT_attribute": "type(FTIT_attribute), value",
    "FTIT_attributeFlag": "integer(c_int), value",
    "FTIT_hsize_t*": "integer(c_long_long), dimension(*)",
}
C_RESULT = {
    "int": "integer(c_int)",
    "fti_id_t": "integer(c_int)",
    "int64_t": "integer(c_int64_t)",
    "void*": "type(c_ptr)",
    "const char*": "type(c_ptr)",
    "FTIT_hsize_t*": "type(c_ptr)",
}
# Fortran argument declarations of the generated 'ierr' wrappers.
WRAPPER_ARG = {"int": "integer, intent(in)", "bool": "logical, intent(in)", "double": "real(c_double), intent(in)"}
WRAPPER_PASS = {"int": "int({0}, c_int)", "bool": "logical({0}, c_bool)", "double": "{0}"}
# Members of the structures the module mirrors as bind(C) types (C has no
# unsigned integers in Fortran: uint64_t is read as integer(c_int64_t)).
MEMBER_TYPE = {"int": "integer(c_int)", "int64_t": "integer(c_int64_t)", "uint64_t": "integer(c_int64_t)",
               "char": "character(kind=c_char)"}


def c_interface(f):
    """The bind(C) interface of one C function (named c_<name>)."""
    return c_api_spec.c_interface(f, C_TO_FORTRAN, C_RESULT)


def ierr_wrapper(f):
    params = [p for p in f["params"] if p != "void"]
    args = f.get("args", [])
    if len(args) != len(params):
        raise SystemExit(f"{f['name']}: 'args' must name each of its {len(params)} parameters")
    lines = [f"  subroutine {f['name']}({', '.join(args + ['ierr'])})"]
    for a, t in zip(args, params):
        lines.append(f"    {WRAPPER_ARG[t]} :: {a}")
    lines.append("    integer, intent(out) :: ierr")
    call = ", ".join(WRAPPER_PASS[t].format(a) for a, t in zip(args, params))
    lines += [f"    ierr = int(c_{f['name']}({call}))", f"  end subroutine {f['name']}"]
    return "\n".join(lines)


def bind_c_type(st, known):
    """The bind(C) derived type that mirrors a C structure of the description."""
    lines = [f"  type, bind(C), public :: {st['name']}"]
    for member in st["members"]:
        m = re.fullmatch(r"(\w+(?: \w+)*) (\w+)(?:\[(\w+)\])?", c_api_spec.normalize_member(member))
        if not m:
            raise SystemExit(f"{st['name']}: cannot mirror the member '{member}'")
        ctype, name, extent = m.groups()
        if ctype in MEMBER_TYPE:
            decl = MEMBER_TYPE[ctype]
        elif ctype in known:
            decl = f"type({ctype})"
        else:
            raise SystemExit(f"{st['name']}: no Fortran type for the member '{member}'")
        lines.append(f"    {decl} :: {name}" + (f"({extent})" if extent else ""))
    lines.append(f"  end type {st['name']}")
    return "\n".join(lines)


class Kind:
    """One intrinsic type and kind that FTI_Protect accepts."""

    def __init__(self, family, kind):
        self.family, self.kind = family, kind
        self.handle = f"FTI_{family.upper()}{kind}"
        if family == "character":
            self.handle = "FTI_CHARACTER1"
            self.decl = "character(kind=c_char, len=*)"
            self.tag = "character"
        else:
            self.decl = f"{family}({kind})"
            self.tag = f"{family}{kind}"

    def sample(self):
        """An expression of this type and kind, for storage_size."""
        k = self.kind
        return {"integer": f"0_{k}", "real": f"0.0_{k}", "complex": f"(0.0_{k}, 0.0_{k})",
                "logical": f".true._{k}"}[self.family]

    def handle_init(self):
        """Fortran statements that set the handle when FTI_Init succeeds."""
        exact = {"integer": [("c_signed_char", "FTI_CHAR"), ("c_short", "FTI_SHRT"), ("c_int", "FTI_INTG"),
                             ("c_long", "FTI_LONG")],
                 "real": [("c_float", "FTI_SFLT"), ("c_double", "FTI_DBLE"), ("c_long_double", "FTI_LDBE")]}
        if self.family == "character":
            return f"    {self.handle} = c_FTI_CHAR_handle"
        lines = []
        branches = exact.get(self.family, [])
        for i, (ckind, chandle) in enumerate(branches):
            lines.append(f"    {'if' if i == 0 else 'else if'} ({self.kind} == {ckind}) then")
            lines.append(f"      {self.handle} = c_{chandle}_handle")
        new_type = f"{self.handle} = new_type(storage_size({self.sample()}) / 8)"
        if branches:
            lines += ["    else", f"      {new_type}", "    end if"]
        else:
            lines.append(f"    {new_type}")
        return "\n".join(lines)


def protect_specific(k, rank):
    name = f"FTI_Protect_{k.tag}_r{rank}"
    shape = "" if rank == 0 else "(" + ",".join([":"] * rank) + ")"
    count = "1_c_int64_t" if rank == 0 else "size(data, kind=c_int64_t)"
    if k.family == "character":
        count = f"{count} * len(data, kind=c_int64_t)"
    lines = [f"  subroutine {name}(id, data, ierr)",
             "    integer, intent(in) :: id",
             f"    {k.decl}, target :: data{shape}",
             "    integer, intent(out) :: ierr",
             "    integer(c_int64_t) :: n",
             f"    n = {count}"]
    if rank == 0:
        lines.append(f"    ierr = protect_address(id, c_loc(data), n, {k.handle})")
    else:
        lines += ["    if (.not. is_contiguous(data)) then",
                  "      ierr = refuse_section(id)",
                  "    else if (n == 0) then",
                  f"      ierr = protect_address(id, c_null_ptr, n, {k.handle})",
                  "    else",
                  f"      ierr = protect_address(id, c_loc(data), n, {k.handle})",
                  "    end if"]
    lines.append(f"  end subroutine {name}")
    return name, "\n".join(lines)


def generate(api, custom_text, kinds):
    custom_spec, custom_text = c_api_spec.split_custom(custom_text)
    known = set()
    types = []
    for st in api.get("structs", []):
        types.append(bind_c_type(st, known))
        known.add(st["name"])
    types = "\n\n".join(types)
    consts = "\n".join(f"  integer, parameter, public :: {c['name']} = {c['value']}" for c in api["constants"])
    handle_vars = "\n".join(f"  integer, public, protected :: {k.handle} = -1" for k in kinds)
    handle_init = "\n".join(k.handle_init() for k in kinds)
    used = [h for h in api["type_handles"] if f"c_{h}_handle" in handle_init]
    # Copies, not bind(C) variables: a bind(C) module variable would define
    # a second FTI_INTG in this library instead of referring to the C one.
    handles_c = "\n".join(f"  integer :: c_{h}_handle = -1" for h in used)
    handle_init = "\n".join(f"    c_{h}_handle = c_type_handle('{h}')" for h in used) + "\n" + handle_init
    specifics, bodies = [], []
    for k in kinds:
        for rank in range(MAX_RANK + 1):
            name, body = protect_specific(k, rank)
            specifics.append(name)
            bodies.append(body)
    procedure_lines = []
    for i in range(0, len(specifics), 3):
        procedure_lines.append("    module procedure " + ", ".join(specifics[i:i + 3]))
    bound = [f for f in api["functions"] if f["fortran"] != "none"]
    interfaces = "\n".join(x for x in (c_interface(f) for f in bound) if x)
    wrappers = [f for f in api["functions"] if f["fortran"] == "ierr"]
    public = sorted({f["name"] for f in api["functions"] if f["fortran"] in ("ierr", "custom")})
    public_lines = "\n".join(f"  public :: {n}" for n in public)
    return f"""! Generated at build time by fortran/generate_fti_module.py from
! fortran/fti_api.json, checked against fti.h. Do not edit: edit those.
!
! The Fortran interface of mlckpt, source-compatible with FTI's module `fti`.
module fti
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: error_unit
  implicit none
  private

{consts}

  ! Type handles of every intrinsic type and kind this compiler has; set by
  ! FTI_Init (the library registers the ones C has no exact match for).
{handle_vars}

  ! The C library's own handles, copied by FTI_Init.
{handles_c}

{public_lines}

  ! C structures of fti.h, member for member.
{types}

{custom_spec}

  interface FTI_InitType
    module procedure FTI_InitType_size, FTI_InitType_int
  end interface FTI_InitType

  interface FTI_Protect
    module procedure FTI_Protect_ptr, FTI_Protect_ptr_count4
{chr(10).join(procedure_lines)}
  end interface FTI_Protect

  interface
{interfaces}
  end interface

contains

{chr(10).join(ierr_wrapper(f) for f in wrappers)}

  ! Sets the type handles once FTI_Init has succeeded.
  subroutine init_type_handles()
{handle_init}
  end subroutine init_type_handles

{custom_text}

{chr(10).join(bodies)}

end module fti
"""


def main():
    ap = c_api_spec.argument_parser(__doc__)
    ap.add_argument("--integer-kinds", required=True)
    ap.add_argument("--real-kinds", required=True)
    ap.add_argument("--logical-kinds", required=True)
    ap.add_argument("--check-only", action="store_true", help="only check the description against the header")
    args = ap.parse_args()

    api = c_api_spec.load_checked(args.api, args.header, "FTI_", C_TO_FORTRAN, "fti_id_t")
    if args.check_only:
        return 0

    kinds = [Kind("integer", int(k)) for k in args.integer_kinds.split()]
    kinds += [Kind("real", int(k)) for k in args.real_kinds.split()]
    kinds += [Kind("complex", int(k)) for k in args.real_kinds.split()]
    kinds += [Kind("logical", int(k)) for k in args.logical_kinds.split()]
    kinds.append(Kind("character", 1))
    c_api_spec.write_module(args, lambda custom: generate(api, custom, kinds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
