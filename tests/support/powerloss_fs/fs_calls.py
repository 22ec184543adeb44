#!/usr/bin/env python3
"""The system calls of the power-loss file system's tests, one call a command
(coreutils do not say which syscalls they make: `sync FILE` may be fsync or
syncfs, `cp` may use copy_file_range). Exits with the errno of a failed call,
after one line on stderr naming it.

  fs_calls.py write FILE OFFSET DATA [--fsync|--fdatasync] [--osync] [--odirect]
  fs_calls.py fsync FILE | fdatasync FILE | fsyncdir DIR
  fs_calls.py read FILE                    (reads it whole, prints nothing)
  fs_calls.py truncate FILE SIZE
  fs_calls.py rename FROM TO [--noreplace]
  fs_calls.py mmap-write FILE OFFSET DATA [--msync]
  fs_calls.py control MOUNT COMMAND...     (one write of the commands, one a line)
  fs_calls.py status MOUNT KEY             (prints the value of KEY in .powerloss)
  fs_calls.py data DATA...                 (writes the DATAs' bytes to stdout)

DATA is text, or pattern:N (N bytes that differ from page to page and from
any other pattern: byte i is (i * 7 + i // 4096) % 251) or fill:C:N (N times
the character C, \\0 for a zero byte).
"""
import ctypes
import errno
import mmap
import os
import sys


def data_of(spec):
    if spec.startswith("pattern:"):
        n = int(spec.split(":")[1])
        return bytes((i * 7 + i // 4096) % 251 for i in range(n))
    if spec.startswith("fill:"):
        _, char, n = spec.split(":")
        return (b"\0" if char == "\\0" else char.encode()) * int(n)
    return spec.encode()


def write(path, offset, spec, *flags):
    mode = os.O_WRONLY | os.O_CREAT
    if "--osync" in flags:
        mode |= os.O_SYNC
    if "--odirect" in flags:
        mode |= os.O_DIRECT
    fd = os.open(path, mode, 0o644)
    try:
        os.pwrite(fd, data_of(spec), int(offset))
        if "--fsync" in flags:
            os.fsync(fd)
        if "--fdatasync" in flags:
            os.fdatasync(fd)
    finally:
        close_quietly(fd)


def close_quietly(fd):
    # A close after the armed freeze fails (its flush meets the dead power):
    # what the test checks is the call before it.
    try:
        os.close(fd)
    except OSError as error:
        print(f"fs_calls: close: {error.strerror} (ignored)", file=sys.stderr)


def sync_path(path, call, flags=os.O_RDONLY):
    fd = os.open(path, flags)
    try:
        call(fd)
    finally:
        close_quietly(fd)


def read(path):
    with open(path, "rb") as f:
        f.read()


def rename(source, target, *flags):
    if "--noreplace" not in flags:
        os.rename(source, target)
        return
    libc = ctypes.CDLL(None, use_errno=True)
    at_fdcwd, rename_noreplace = -100, 1
    if libc.renameat2(at_fdcwd, source.encode(), at_fdcwd, target.encode(), rename_noreplace) != 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code), source)


def mmap_write(path, offset, spec, *flags):
    data = data_of(spec)
    fd = os.open(path, os.O_RDWR)
    try:
        with mmap.mmap(fd, 0, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE) as mapping:
            mapping[int(offset) : int(offset) + len(data)] = data
            if "--msync" in flags:
                mapping.flush()  # msync(MS_SYNC) of the whole mapping
    finally:
        close_quietly(fd)


def control(mount, *commands):
    fd = os.open(os.path.join(mount, ".powerloss"), os.O_WRONLY)
    try:
        os.write(fd, ("\n".join(commands) + "\n").encode())
    finally:
        os.close(fd)


def status(mount, key):
    with open(os.path.join(mount, ".powerloss")) as f:
        for line in f:
            name, _, value = line.strip().partition(" ")
            if name == key:
                print(value)
                return
    raise SystemExit(f"fs_calls: no {key} in {mount}/.powerloss")


CALLS = {
    "write": write,
    "fsync": lambda path: sync_path(path, os.fsync, os.O_WRONLY),
    "fdatasync": lambda path: sync_path(path, os.fdatasync, os.O_WRONLY),
    "fsyncdir": lambda path: sync_path(path, os.fsync, os.O_RDONLY | os.O_DIRECTORY),
    "read": read,
    "truncate": lambda path, size: os.truncate(path, int(size)),
    "rename": rename,
    "mmap-write": mmap_write,
    "control": control,
    "status": status,
    "data": lambda *specs: sys.stdout.buffer.write(b"".join(data_of(spec) for spec in specs)),
}


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in CALLS:
        raise SystemExit(__doc__)
    try:
        CALLS[sys.argv[1]](*sys.argv[2:])
    except OSError as error:
        name = errno.errorcode.get(error.errno, str(error.errno))
        print(f"fs_calls: {sys.argv[1]} {' '.join(sys.argv[2:])}: {name} ({error.strerror})", file=sys.stderr)
        sys.exit(error.errno)


if __name__ == "__main__":
    main()
