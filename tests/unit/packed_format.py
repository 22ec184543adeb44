#!/usr/bin/env python3
"""A reader and a writer of packed (compressed) variables, the test's own.

Written from docs/formats.md ("Compressed variables"), not from the
library's code, with the Python standard library only, so that the format
is checked both ways by something the library did not produce:

  packed_format.py write FILE           writes the golden file
  packed_format.py check-golden FILE    FILE is what `write` writes, byte for
                                        byte, and reads back to the expected
                                        bytes, every field checked
  packed_format.py check-library UNIT_TESTS DIR
                                        runs the unit test that writes a
                                        POSIX file of packed variables with
                                        the library (into DIR), then reads it

Codecs: Python's standard library has neither LZ4 nor Zstandard. LZ4's
block format is small, so this file has its own LZ4 compressor and
decompressor; it has no Zstandard or ZFP decoder. A frame of codec 2
(Zstandard) whose blocks are all stored as they are is read (the golden file
has one); a compressed Zstandard or ZFP block is refused as unsupported.

The golden file (tests/unit/data/packed_golden.fti) is one rank's POSIX
checkpoint data of three variables, their bytes given by the formulas
below (the unit test has the same):

  variable 1: 875 little-endian u32, element i is
              xorshift32 noise for 256 <= i < 512, else 0x3f800000 + 977 i.
              Packed: codec 1 (LZ4), shuffle unit 4, blocks of 1024 bytes:
              block 0 compressed (c-blosc, split in 4 streams of which some
              are stored as they are), block 1 stored as it is (the noise),
              block 2 compressed (not split, two c-blosc blocks), block 3
              (428 bytes) compressed (two c-blosc blocks, the last short).
  variable 2: 40 bytes, byte k is (37 k + 11) mod 256; under 1 KiB, so
              stored as it is, no frame.
  variable 3: 137 little-endian u64, element j is
              (j * 0x0101010101010101) xor 0x0123456789abcdef (mod 2^64).
              Packed: codec 2 (Zstandard), shuffle unit 8, blocks of 512
              bytes, all three stored as they are.
"""

import argparse
import binascii
import os
import struct
import subprocess
import sys

MAGIC = 0x5A434C4D  # "MLCZ"
TRAILER_BYTES = 32
TABLE_ENTRY_BYTES = 8
MIN_PACKED_BYTES = 1024
CODECS = {1: "lz4", 2: "zstd", 3: "zfp"}

# c-blosc (version 1 buffer format, "version" byte 2).
BLOSC_HEADER_BYTES = 16
BLOSC_VERSION_FORMAT = 2
BLOSC_DOSHUFFLE = 0x01
BLOSC_MEMCPYED = 0x02
BLOSC_DOBITSHUFFLE = 0x04
BLOSC_RESERVED = 0x08
BLOSC_DONT_SPLIT = 0x10
BLOSC_LZ4_FORMAT = 1  # flags bits 5-7
BLOSC_ZSTD_FORMAT = 4
BLOSC_LZ4_VERSION = 1  # the "versionlz" byte of an LZ4 buffer
BLOSC_MAX_SPLITS = 16
BLOSC_MIN_BUFFERSIZE = 128


class FormatError(Exception):
    pass


def crc32(data):
    """The CRC-32 of zlib and gzip (IEEE 802.3)."""
    return binascii.crc32(data) & 0xFFFFFFFF


# --- LZ4 block format -------------------------------------------------------


def _lz4_length(n):
    out = bytearray()
    while n >= 255:
        out.append(255)
        n -= 255
    out.append(n)
    return out


def lz4_compress(src):
    """A greedy LZ4 block compressor (a valid block, not LZ4's own output).
    Follows the block format's end rules: the last 5 bytes are literals and
    the last match starts at least 12 bytes before the end."""
    n = len(src)
    out = bytearray()
    anchor = 0
    last = {}
    i = 0
    while i + 12 < n:  # a match may start here
        key = bytes(src[i:i + 4])
        candidate = last.get(key)
        last[key] = i
        if candidate is None or i - candidate > 65535:
            i += 1
            continue
        length = 4
        while i + length < n - 5 and src[candidate + length] == src[i + length]:
            length += 1
        literals = src[anchor:i]
        token_lit = min(len(literals), 15)
        token_match = min(length - 4, 15)
        out.append(token_lit << 4 | token_match)
        if token_lit == 15:
            out += _lz4_length(len(literals) - 15)
        out += literals
        out += struct.pack("<H", i - candidate)
        if token_match == 15:
            out += _lz4_length(length - 4 - 15)
        i += length
        anchor = i
    literals = src[anchor:]
    token_lit = min(len(literals), 15)
    out.append(token_lit << 4)
    if token_lit == 15:
        out += _lz4_length(len(literals) - 15)
    out += literals
    return bytes(out)


def lz4_decompress(src, size):
    """Decodes one LZ4 block into exactly `size` bytes."""
    out = bytearray()
    p = 0

    def length(value):
        nonlocal p
        if value != 15:
            return value
        while True:
            if p >= len(src):
                raise FormatError("LZ4 block: a length runs past the end")
            b = src[p]
            p += 1
            value += b
            if b != 255:
                return value

    while True:
        if p >= len(src):
            raise FormatError("LZ4 block: ends without its last literals")
        token = src[p]
        p += 1
        literals = length(token >> 4)
        if p + literals > len(src):
            raise FormatError("LZ4 block: literals run past the end")
        out += src[p:p + literals]
        p += literals
        if p == len(src):
            break  # the last sequence has no match
        if p + 2 > len(src):
            raise FormatError("LZ4 block: a match offset runs past the end")
        offset = src[p] | src[p + 1] << 8
        p += 2
        if offset == 0 or offset > len(out):
            raise FormatError("LZ4 block: match offset %d before the start" % offset)
        match = length(token & 15) + 4
        if len(out) + match > size:
            raise FormatError("LZ4 block: decodes to more than %d bytes" % size)
        for _ in range(match):  # may overlap what it copies
            out.append(out[-offset])
        if len(out) > size:
            raise FormatError("LZ4 block: decodes to more than %d bytes" % size)
    if len(out) != size:
        raise FormatError("LZ4 block: decodes to %d bytes, not %d" % (len(out), size))
    return bytes(out)


# --- c-blosc buffers --------------------------------------------------------


def shuffle(data, unit):
    """Byte shuffle: byte j of every whole element together, element order
    kept; the bytes after the last whole element stay at the end."""
    whole = len(data) // unit
    out = bytearray()
    for j in range(unit):
        out += data[j:whole * unit:unit]
    out += data[whole * unit:]
    return bytes(out)


def unshuffle(data, unit):
    whole = len(data) // unit
    out = bytearray(len(data))
    for j in range(unit):
        out[j:whole * unit:unit] = data[j * whole:(j + 1) * whole]
    out[whole * unit:] = data[whole * unit:]
    return bytes(out)


def blosc_streams(blocksize, typesize, split_allowed, leftover):
    """How many streams a c-blosc block is cut into (the decoder's rule)."""
    if split_allowed and not leftover and typesize <= BLOSC_MAX_SPLITS and \
            blocksize // typesize >= BLOSC_MIN_BUFFERSIZE:
        return typesize
    return 1


def blosc_pack(raw, typesize, blocksize, split, stats):
    """A c-blosc buffer of `raw`: byte shuffle by `typesize`, LZ4, c-blosc
    blocks of `blocksize`; each stream compressed, or stored as it is when
    LZ4 does not shrink it."""
    flags = (BLOSC_DOSHUFFLE if typesize > 1 else 0) | BLOSC_LZ4_FORMAT << 5
    if not split:
        flags |= BLOSC_DONT_SPLIT
    nblocks = (len(raw) + blocksize - 1) // blocksize
    body = bytearray()
    starts = []
    start = BLOSC_HEADER_BYTES + 4 * nblocks
    for b in range(nblocks):
        chunk = raw[b * blocksize:(b + 1) * blocksize]
        leftover = len(chunk) < blocksize
        data = shuffle(chunk, typesize) if typesize > 1 else chunk
        streams = blosc_streams(blocksize, typesize, split, leftover)
        width = len(chunk) // streams
        starts.append(start + len(body))
        for s in range(streams):
            stream = data[s * width:(s + 1) * width]
            packed = lz4_compress(stream)
            if len(packed) >= len(stream):
                packed = stream  # a stream whose length is the raw one is stored as it is
                stats["streams_as_is"] += 1
            else:
                stats["streams_compressed"] += 1
            body += struct.pack("<i", len(packed)) + packed
    cbytes = start + len(body)
    header = struct.pack("<BBBBIII", BLOSC_VERSION_FORMAT, BLOSC_LZ4_VERSION, flags, typesize, len(raw),
                         blocksize, cbytes)
    return header + b"".join(struct.pack("<i", s) for s in starts) + bytes(body)


def blosc_unpack(buf, raw_length, unit, codec, where):
    """Decodes one compressed block (a c-blosc buffer) of `raw_length` bytes,
    checking its header against the block."""
    def bad(defect):
        raise FormatError("%s: %s" % (where, defect))

    if len(buf) < BLOSC_HEADER_BYTES:
        bad("%d bytes, shorter than a c-blosc header" % len(buf))
    version, versionlz, flags, typesize, nbytes, blocksize, cbytes = struct.unpack_from("<BBBBIII", buf)
    if version != BLOSC_VERSION_FORMAT:
        bad("c-blosc format version %d, expected %d" % (version, BLOSC_VERSION_FORMAT))
    if nbytes != raw_length:
        bad("the c-blosc header says %d raw bytes, the block has %d" % (nbytes, raw_length))
    if cbytes != len(buf):
        bad("the c-blosc header says %d bytes, %d are stored" % (cbytes, len(buf)))
    if typesize != unit:
        bad("c-blosc typesize %d, the frame's shuffle unit is %d" % (typesize, unit))
    if flags & (BLOSC_RESERVED | BLOSC_DOBITSHUFFLE):
        bad("c-blosc flags 0x%02x: reserved bit or bit shuffle" % flags)
    if unit > 1 and not flags & (BLOSC_DOSHUFFLE | BLOSC_MEMCPYED):
        bad("c-blosc flags 0x%02x: no byte shuffle for a unit of %d" % (flags, unit))
    if flags & BLOSC_MEMCPYED:
        if cbytes != nbytes + BLOSC_HEADER_BYTES:
            bad("a copied c-blosc buffer of %d bytes for %d raw bytes" % (cbytes, nbytes))
        return bytes(buf[BLOSC_HEADER_BYTES:])
    compressor = flags >> 5
    expected = {1: BLOSC_LZ4_FORMAT, 2: BLOSC_ZSTD_FORMAT}.get(codec)
    if compressor != expected:
        bad("c-blosc compressor %d in a frame of codec %d" % (compressor, codec))
    if compressor != BLOSC_LZ4_FORMAT:
        bad("a compressed Zstandard block: Python's standard library has no Zstandard decoder")
    if versionlz != BLOSC_LZ4_VERSION:
        bad("c-blosc LZ4 format version %d" % versionlz)
    if blocksize == 0 or blocksize > nbytes:
        bad("c-blosc blocks of %d bytes for %d raw bytes" % (blocksize, nbytes))
    nblocks = (nbytes + blocksize - 1) // blocksize
    if BLOSC_HEADER_BYTES + 4 * nblocks > cbytes:
        bad("its %d c-blosc block starts do not fit" % nblocks)
    out = bytearray()
    end_of_previous = BLOSC_HEADER_BYTES + 4 * nblocks
    for b in range(nblocks):
        (start,) = struct.unpack_from("<i", buf, BLOSC_HEADER_BYTES + 4 * b)
        if start != end_of_previous:
            bad("c-blosc block %d starts at %d, the one before ends at %d" % (b, start, end_of_previous))
        size = min(blocksize, nbytes - b * blocksize)
        streams = blosc_streams(blocksize, typesize, not flags & BLOSC_DONT_SPLIT, size < blocksize)
        width = size // streams
        data = bytearray()
        p = start
        for _ in range(streams):
            if p + 4 > cbytes:
                bad("a c-blosc stream length runs past the end")
            (csize,) = struct.unpack_from("<i", buf, p)
            p += 4
            if csize <= 0 or p + csize > cbytes:
                bad("a c-blosc stream of %d bytes at %d" % (csize, p))
            stream = buf[p:p + csize]
            data += stream if csize == width else lz4_decompress(stream, width)
            p += csize
        out += unshuffle(bytes(data), typesize) if flags & BLOSC_DOSHUFFLE and typesize > 1 else data
        end_of_previous = p
    if end_of_previous != cbytes:
        bad("c-blosc streams end at %d of %d bytes" % (end_of_previous, cbytes))
    return bytes(out)


# --- Frames -----------------------------------------------------------------


def write_frame(raw, codec, unit, block_bytes, encode_block):
    """A frame of `raw`: encode_block(i, block) gives block i's stored bytes
    (the block itself to store it as it is)."""
    assert block_bytes % unit == 0
    blocks = (len(raw) + block_bytes - 1) // block_bytes
    stored = bytearray()
    table = bytearray()
    for i in range(blocks):
        block = raw[i * block_bytes:(i + 1) * block_bytes]
        data = encode_block(i, block)
        assert 0 < len(data) <= len(block), "a block stored compressed must shrink"
        table += struct.pack("<II", len(data), crc32(data))
        stored += data
    fields = struct.pack("<QIIBBHI", len(raw), block_bytes, blocks, codec, unit, 1, 0)
    trailer = fields + struct.pack("<II", crc32(bytes(table) + fields), MAGIC)
    return bytes(stored) + bytes(table) + trailer


def read_frame(frame, what):
    """Parses and decodes one frame, checking every field. Returns the raw
    bytes and what was found."""
    def bad(defect):
        raise FormatError("%s: %s" % (what, defect))

    if len(frame) < TRAILER_BYTES:
        bad("%d bytes, fewer than a trailer" % len(frame))
    trailer = frame[-TRAILER_BYTES:]
    raw_size, block_bytes, blocks, codec, unit, version, zero, table_crc, magic = \
        struct.unpack("<QIIBBHIII", trailer)
    if magic != MAGIC:
        bad("magic 0x%08x" % magic)
    if version != 1:
        bad("version %d" % version)
    if codec not in CODECS:
        bad("codec %d" % codec)
    if zero != 0:
        bad("trailer bytes 20..23 are 0x%08x, not zero" % zero)
    if unit == 0:
        bad("shuffle unit 0")
    if block_bytes == 0:
        bad("blocks of 0 bytes")
    if blocks != (raw_size + block_bytes - 1) // block_bytes:
        bad("%d blocks of %d bytes for %d bytes" % (blocks, block_bytes, raw_size))
    table_bytes = blocks * TABLE_ENTRY_BYTES
    if table_bytes > len(frame) - TRAILER_BYTES:
        bad("a table of %d blocks does not fit" % blocks)
    table = frame[len(frame) - TRAILER_BYTES - table_bytes:len(frame) - TRAILER_BYTES]
    computed = crc32(table + trailer[:24])
    if computed != table_crc:
        bad("table CRC 0x%08x, computed 0x%08x" % (table_crc, computed))
    entries = [struct.unpack_from("<II", table, TABLE_ENTRY_BYTES * i) for i in range(blocks)]
    if sum(s for s, _ in entries) != len(frame) - table_bytes - TRAILER_BYTES:
        bad("stored lengths add up to %d, the blocks' room is %d" %
            (sum(s for s, _ in entries), len(frame) - table_bytes - TRAILER_BYTES))
    raw = bytearray()
    found = []
    offset = 0
    for i, (stored, crc) in enumerate(entries):
        raw_length = min(block_bytes, raw_size - i * block_bytes)
        where = "%s block %d" % (what, i)
        if stored == 0 or stored > raw_length:
            bad("block %d: %d stored bytes for %d raw bytes" % (i, stored, raw_length))
        data = frame[offset:offset + stored]
        if crc32(data) != crc:
            raise FormatError("%s: CRC 0x%08x, computed 0x%08x" % (where, crc, crc32(data)))
        as_is = stored == raw_length
        raw += data if as_is else blosc_unpack(data, raw_length, unit, codec, where)
        found.append({"stored": stored, "crc": crc, "as_is": as_is, "raw_length": raw_length})
        offset += stored
    header = {"raw_size": raw_size, "block_bytes": block_bytes, "blocks": blocks, "codec": codec,
              "unit": unit, "version": version, "table_crc": table_crc}
    return bytes(raw), header, found


# --- The variables ----------------------------------------------------------


def variable_1():
    out = bytearray()
    state = 0x9E3779B9
    for i in range(875):
        if 256 <= i < 512:
            state ^= (state << 13) & 0xFFFFFFFF
            state ^= state >> 17
            state ^= (state << 5) & 0xFFFFFFFF
            value = state
        else:
            value = 0x3F800000 + 977 * i
        out += struct.pack("<I", value)
    return bytes(out)


def variable_2():
    return bytes((37 * k + 11) % 256 for k in range(40))


def variable_3():
    return b"".join(struct.pack("<Q", (j * 0x0101010101010101 ^ 0x0123456789ABCDEF) & 0xFFFFFFFFFFFFFFFF)
                    for j in range(137))


VARIABLES = {1: (variable_1, 4), 2: (variable_2, 1), 3: (variable_3, 8)}


def golden():
    """The golden file's bytes and its records: (id, offset, size, stored,
    crc32), stored 0 for a variable stored as it is."""
    stats = {"streams_as_is": 0, "streams_compressed": 0}
    # (c-blosc block size, split) of each compressed block of variable 1.
    blosc_of = {0: (1024, True), 2: (512, False), 3: (256, True)}

    def encode_1(i, block):
        if i not in blosc_of:
            return block
        return blosc_pack(block, 4, blosc_of[i][0], blosc_of[i][1], stats)

    v1, v2, v3 = variable_1(), variable_2(), variable_3()
    frame_1 = write_frame(v1, 1, 4, 1024, encode_1)
    frame_3 = write_frame(v3, 2, 8, 512, lambda i, block: block)
    assert stats["streams_as_is"] > 0 and stats["streams_compressed"] > 0, stats
    records = [(1, 0, len(v1), len(frame_1), crc32(v1)),
               (2, len(frame_1), len(v2), 0, crc32(v2)),
               (3, len(frame_1) + len(v2), len(v3), len(frame_3), crc32(v3))]
    return frame_1 + v2 + frame_3, records


def read_variables(data, records, name):
    """Reads every variable of a rank's POSIX data through its records, as
    docs/formats.md says, checking every field; returns what each frame
    holds."""
    expected_offset = 0
    frames = {}
    for var_id, offset, size, stored, crc in records:
        what = "variable %d of %s" % (var_id, name)
        if offset != expected_offset:
            raise FormatError("%s starts at %d, the one before ends at %d" % (what, offset, expected_offset))
        if stored == 0:
            if size >= MIN_PACKED_BYTES:
                raise FormatError("%s: %d bytes stored as they are" % (what, size))
            raw = data[offset:offset + size]
            expected_offset = offset + size
        else:
            if size < MIN_PACKED_BYTES:
                raise FormatError("%s: %d bytes packed" % (what, size))
            raw, header, blocks = read_frame(data[offset:offset + stored], what)
            if header["raw_size"] != size:
                raise FormatError("%s: the frame holds %d bytes, the record says %d" %
                                  (what, header["raw_size"], size))
            frames[var_id] = (header, blocks)
            expected_offset = offset + stored
        if len(raw) != size or crc32(raw) != crc:
            raise FormatError("%s: CRC-32 0x%08x, the record says 0x%08x" % (what, crc32(raw), crc))
        generate, _ = VARIABLES[var_id]
        if raw != generate():
            raise FormatError("%s: the bytes are not the expected ones" % what)
    if expected_offset != len(data):
        raise FormatError("%s: %d bytes, its variables end at %d" % (name, len(data), expected_offset))
    return frames


def check(condition, message):
    if not condition:
        raise FormatError(message)


def check_golden(path):
    data, records = golden()
    with open(path, "rb") as f:
        on_disk = f.read()
    check(on_disk == data, "%s is not what this script writes (%d bytes, expected %d): regenerate it with "
                           "'packed_format.py write'" % (path, len(on_disk), len(data)))
    frames = read_variables(on_disk, records, path)
    header, blocks = frames[1]
    check((header["codec"], header["unit"], header["block_bytes"], header["blocks"]) == (1, 4, 1024, 4),
          "variable 1: %s" % header)
    check([b["as_is"] for b in blocks] == [False, True, False, False], "variable 1: %s" % blocks)
    header, blocks = frames[3]
    check((header["codec"], header["unit"], header["block_bytes"], header["blocks"]) == (2, 8, 512, 3),
          "variable 3: %s" % header)
    check(all(b["as_is"] for b in blocks), "variable 3: %s" % blocks)
    print("%s: %d bytes, as written; every field checked, every variable decoded to its bytes" % (path, len(data)))
    for r in records:
        print("  var %d offset %d size %d stored %d crc32 0x%08x" % r)


def read_record(path):
    """The unit test's record of the file it wrote: 'VAR id offset size
    stored crc32 elem' and 'FILE size crc32' lines."""
    records, file_size, file_crc, elems = [], None, None, {}
    with open(path) as f:
        for line in f:
            words = line.split()
            if words and words[0] == "VAR":
                var_id, offset, size, stored = (int(w) for w in words[1:5])
                records.append((var_id, offset, size, stored, int(words[5], 16)))
                elems[var_id] = int(words[6])
            elif words and words[0] == "FILE":
                file_size, file_crc = int(words[1]), int(words[2], 16)
    return records, file_size, file_crc, elems


def check_library(unit_tests, directory):
    os.makedirs(directory, exist_ok=True)
    data_path = os.path.join(directory, "library.fti")
    record_path = os.path.join(directory, "library.rec")
    for p in (data_path, record_path):
        if os.path.exists(p):
            os.remove(p)
    env = dict(os.environ, MLCKPT_PACKED_GOLDEN_OUT=directory)
    run = subprocess.run([unit_tests, "--gtest_filter=PackedGolden.LibraryWritesAFileForThePythonReader"], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    check(run.returncode == 0 and "[  PASSED  ] 1 test" in run.stdout,
          "the unit test that writes the library's file failed:\n" + run.stdout)
    with open(data_path, "rb") as f:
        data = f.read()
    records, file_size, file_crc, elems = read_record(record_path)
    check([r[0] for r in records] == [1, 2, 3], "the record names variables %s" % [r[0] for r in records])
    check(file_size == len(data) and file_crc == crc32(data),
          "the file has %d bytes, CRC-32 0x%08x; its record says %s, %s" % (len(data), crc32(data), file_size,
                                                                             file_crc))
    frames = read_variables(data, records, data_path)
    check(sorted(frames) == [1, 3], "packed variables %s, expected 1 and 3" % sorted(frames))
    for var_id, (header, blocks) in frames.items():
        check(header["codec"] == 1 and header["unit"] == elems[var_id] == VARIABLES[var_id][1] and
              header["block_bytes"] == 1024, "variable %d: %s (element size %d)" % (var_id, header, elems[var_id]))
    # Both kinds of block were read: compressed ones (variable 1's smooth
    # blocks) and one stored as it is (its noise).
    kinds = [b["as_is"] for b in frames[1][1]]
    check(True in kinds and False in kinds, "variable 1's blocks as they are: %s" % kinds)
    print("%s: %d bytes written by the library; every field checked, every variable decoded to its bytes" %
          (data_path, len(data)))
    for var_id, (header, blocks) in sorted(frames.items()):
        print("  var %d: %s; blocks (stored, as is): %s" % (var_id, header,
                                                             [(b["stored"], b["as_is"]) for b in blocks]))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("write").add_argument("file")
    sub.add_parser("check-golden").add_argument("file")
    library = sub.add_parser("check-library")
    library.add_argument("unit_tests")
    library.add_argument("directory")
    args = parser.parse_args()
    try:
        if args.command == "write":
            data, records = golden()
            with open(args.file, "wb") as f:
                f.write(data)
            for r in records:
                print("var %d offset %d size %d stored %d crc32 0x%08x" % r)
        elif args.command == "check-golden":
            check_golden(args.file)
        else:
            check_library(args.unit_tests, args.directory)
    except FormatError as e:
        print("FAILED: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
