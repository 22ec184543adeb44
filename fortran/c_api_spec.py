"""What the Fortran module generators share: reading a C header of mlckpt's
public API (its constants, exported functions, structures, type handles),
checking a JSON description of that API against it, and writing the
bind(C) interface of one C function. Standard library only.

A description is a JSON object with "constants" ({"name", "value"}),
"functions" ({"name", "returns", "params", "fortran", ...}) and optionally
"structs" and "type_handles"; "fortran" is how the module wraps the
function, "none" for C only.
"""

import argparse
import json
import re
import sys


def normalize_type(param):
    """'const char* configFile' -> 'const char*'; 'void' -> 'void'; '...' -> '...'."""
    if param.strip() == "...":
        return "..."
    tokens = re.findall(r"\w+|\*", param)
    if len(tokens) > 1 and re.fullmatch(r"\w+", tokens[-1]) and tokens[-1] not in ("void",):
        tokens = tokens[:-1]
    text = ""
    for t in tokens:
        if t == "*":
            text += "*"
        else:
            text += (" " if text else "") + t
    return text


def parse_int(text):
    """'-1', '0x4', '1 << 2' or '(1 << 2)' as an int; None for anything else."""
    text = text.strip()
    if text.startswith("(") and text.endswith(")"):
        text = text[1:-1].strip()
    m = re.fullmatch(r"(-?(?:0x[0-9a-fA-F]+|\d+))(?:\s*<<\s*(\d+))?", text)
    if not m:
        return None
    value = int(m.group(1), 0)
    return value << int(m.group(2)) if m.group(2) else value


def normalize_member(member):
    """'char   name[FTI_BUFS]' -> 'char name[FTI_BUFS]'."""
    return re.sub(r"\s*\[\s*", "[", re.sub(r"\s+", " ", member.strip())).replace(" ]", "]")


def parse_header(text, prefix, handle_ctype=None):
    """The integer constants, type handles (exported variables of the C type
    `handle_ctype`), exported functions and structures of a header whose
    names begin with `prefix` (FTI_, SCR_)."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    constants = {}
    for m in re.finditer(rf"^#define\s+({prefix}\w+)\s+(.+?)\s*$", text, flags=re.M):
        value = parse_int(m.group(2))
        if value is not None:
            constants[m.group(1)] = value
    # Enumerators (FTI_ATTRIBUTE_NAME = 1 << 0, ...) are constants too.
    for m in re.finditer(r"\benum\s*\w*\s*\{([^}]*)\}", text):
        for item in m.group(1).split(","):
            name, _, value = item.partition("=")
            if name.strip().startswith(prefix) and parse_int(value) is not None:
                constants[name.strip()] = parse_int(value)
    export = r"MLCKPT\w*_EXPORT"
    handles = []
    if handle_ctype:
        handles = re.findall(rf"{export}\s+extern\s+{handle_ctype}\s+({prefix}\w+)\s*;", text)
    functions = {}
    for m in re.finditer(rf"{export}\s+([^;(]*?)\b({prefix}\w+)\s*\(([^)]*)\)\s*;", text, flags=re.S):
        returns = normalize_type(m.group(1) + " x")
        params = [normalize_type(p) for p in m.group(3).split(",")]
        functions[m.group(2)] = (returns, params)
    # typedef struct NAME { members } NAME; (structures without nested braces)
    structs = {}
    for m in re.finditer(r"typedef\s+struct\s+\w*\s*\{([^{}]*)\}\s*(\w+)\s*;", text):
        structs[m.group(2)] = [normalize_member(x) for x in m.group(1).split(";") if x.strip()]
    return constants, handles, functions, structs


def drift(api, header_text, header_name, prefix, c_to_fortran, handle_ctype=None):
    """Every disagreement between the description and the header, as
    sentences; also every parameter type of a bound function that
    `c_to_fortran` has no Fortran declaration for."""
    constants, handles, functions, structs = parse_header(header_text, prefix, handle_ctype)
    problems = []
    described = {f["name"]: f for f in api["functions"]}
    for name, (returns, params) in functions.items():
        if name not in described:
            problems.append(f"{name} is in {header_name} but not in the API description")
            continue
        f = described[name]
        if f["returns"] != returns or f["params"] != params:
            problems.append(f"{name}: {header_name} says {returns} ({', '.join(params)}), the description says "
                            f"{f['returns']} ({', '.join(f['params'])})")
    for name in described:
        if name not in functions:
            problems.append(f"{name} is described but not declared in {header_name}")
    for c in api["constants"]:
        if c["name"] not in constants:
            problems.append(f"constant {c['name']} is described but not defined in {header_name}")
        elif constants[c["name"]] != c["value"]:
            problems.append(f"constant {c['name']}: {header_name} says {constants[c['name']]}, "
                            f"the description says {c['value']}")
    for st in api.get("structs", []):
        if st["name"] not in structs:
            problems.append(f"structure {st['name']} is described but not defined in {header_name}")
        elif structs[st["name"]] != [normalize_member(x) for x in st["members"]]:
            problems.append(f"structure {st['name']}: {header_name} says {{{'; '.join(structs[st['name']])}}}, "
                            f"the description says {{{'; '.join(st['members'])}}}")
    if sorted(handles) != sorted(api.get("type_handles", [])):
        problems.append(f"type handles: {header_name} has {sorted(handles)}, "
                        f"the description {sorted(api.get('type_handles', []))}")
    for f in [f for f in api["functions"] if f["fortran"] != "none"]:
        for t in [p for p in f["params"] if p not in ("void", "MPI_Comm")]:
            if t not in c_to_fortran:
                problems.append(f"{f['name']}: no Fortran interface for the C type '{t}'")
    return problems


def load_checked(api_path, header_path, prefix, c_to_fortran, handle_ctype=None):
    """The description, or exits with status 1 listing how it disagrees
    with the header."""
    with open(api_path, encoding="utf-8") as f:
        api = json.load(f)
    with open(header_path, encoding="utf-8") as f:
        header = f.read()
    header_name = re.sub(r".*/", "", header_path)
    problems = drift(api, header, header_name, prefix, c_to_fortran, handle_ctype)
    if problems:
        print(f"{api_path} disagrees with {header_path}:", file=sys.stderr)
        for p in problems:
            print(f"  - {p}", file=sys.stderr)
        print("update the description (and the module's custom part) to match the C API", file=sys.stderr)
        sys.exit(1)
    return api


def c_interface(f, c_to_fortran, c_result):
    """The bind(C) interface of one C function (named c_<name>)."""
    params = [p for p in f["params"] if p != "void"]
    if f["fortran"] == "none":
        return ""  # C only
    if "MPI_Comm" in params:
        return ""  # reached through the C shim, which converts the Fortran handle
    names = [f"a{i}" for i in range(len(params))]
    lines = [f"    function c_{f['name']}({', '.join(names)}) bind(C, name=\"{f['name']}\") result(r)",
             "      import",
             "      implicit none"]
    for n, t in zip(names, params):
        lines.append(f"      {c_to_fortran[t]} :: {n}")
    lines += [f"      {c_result[f['returns']]} :: r", "    end function"]
    return "\n".join(lines)


def split_custom(text):
    """The hand-written file: declarations, a line 'contains', procedures."""
    parts = re.split(r"^contains[ \t]*$", text, maxsplit=1, flags=re.M)
    if len(parts) != 2:
        raise SystemExit("the custom part needs a line 'contains' between its declarations and its procedures")
    return parts[0].strip("\n"), parts[1].strip("\n")


def argument_parser(doc):
    """The arguments every generator takes: --api, --header, --custom, --out."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    for option in ("--api", "--header", "--custom", "--out"):
        ap.add_argument(option, required=True)
    return ap


def write_module(args, generate):
    """Writes to --out what `generate` makes of the custom part (--custom)."""
    with open(args.custom, encoding="utf-8") as f:
        text = generate(f.read())
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(text)
