#!/usr/bin/env python3
"""The wheel platform tag of an ELF executable, as auditwheel computes it for a binary that needs
only glibc: `manylinux_2_NN_<arch>`, NN the highest `GLIBC_2.NN` symbol version the binary
references (its .gnu.version_r section), plus the legacy alias (`manylinux2014_<arch>`) when NN is
at most 17. A binary that needs a shared library other than glibc's own (libc, libm, libpthread,
libdl, librt, the dynamic loader), or glibc's private symbols, is not manylinux: `linux_<arch>`,
with a warning on stderr.

    scripts/wheel_platform_tag.py build/ptlint          # manylinux_2_35_x86_64
    scripts/wheel_platform_tag.py --explain build/ptlint

Only the standard library: the ELF file is read with `struct`.
"""
import re
import struct
import sys

GLIBC_LIBS = {"libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2", "librt.so.1",
              "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1"}
MACHINES = {62: "x86_64", 183: "aarch64"}
SHT_DYNAMIC, SHT_GNU_VERNEED, DT_NEEDED = 6, 0x6FFFFFFE, 1


def read_elf(path):
    """(arch, [needed libraries], {library: [version names]})"""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise SystemExit(f"{path}: not a 64-bit little-endian ELF file")
    machine = struct.unpack_from("<H", data, 18)[0]
    shoff, = struct.unpack_from("<Q", data, 40)
    shentsize, shnum = struct.unpack_from("<HH", data, 58)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]

    def string(strtab, offset):
        start = sections[strtab][4] + offset
        return data[start:data.index(b"\0", start)].decode()

    needed, versions = [], {}
    for name, kind, flags, addr, offset, size, link, info, align, entsize in sections:
        if kind == SHT_DYNAMIC:
            for pos in range(offset, offset + size, 16):
                tag, value = struct.unpack_from("<qQ", data, pos)
                if tag == 0:
                    break
                if tag == DT_NEEDED:
                    needed.append(string(link, value))
        elif kind == SHT_GNU_VERNEED:
            pos = offset
            for _ in range(info):  # sh_info: the number of Verneed entries
                vn_version, vn_cnt, vn_file, vn_aux, vn_next = struct.unpack_from("<HHIII", data, pos)
                library = string(link, vn_file)
                aux = pos + vn_aux
                for _ in range(vn_cnt):
                    vna_hash, vna_flags, vna_other, vna_name, vna_next = struct.unpack_from("<IHHII", data, aux)
                    versions.setdefault(library, []).append(string(link, vna_name))
                    aux += vna_next
                pos += vn_next
    return MACHINES.get(machine, f"machine{machine}"), needed, versions


def platform_tag(path):
    arch, needed, versions = read_elf(path)
    problems = [f"needs {lib}" for lib in needed if lib not in GLIBC_LIBS]
    highest = (2, 17)
    for library, names in versions.items():
        if library not in GLIBC_LIBS:
            continue  # reported above, once
        for name in names:
            m = re.fullmatch(r"GLIBC_(\d+)\.(\d+)(?:\.\d+)?", name)
            if m:
                highest = max(highest, (int(m.group(1)), int(m.group(2))))
            else:  # GLIBC_PRIVATE: tied to one glibc build
                problems.append(f"needs {name} from {library}")
    if problems:
        return f"linux_{arch}", problems, highest
    major, minor = highest
    tags = [f"manylinux_{major}_{minor}_{arch}"]
    if (major, minor) <= (2, 17):
        tags.append(f"manylinux2014_{arch}")
    return ".".join(tags), [], highest


def main(argv):
    explain = "--explain" in argv
    paths = [a for a in argv if a != "--explain"]
    if len(paths) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    tag, problems, highest = platform_tag(paths[0])
    for p in problems:
        print(f"warning: {paths[0]} is not a manylinux binary: it {p}", file=sys.stderr)
    if explain:
        print(f"highest glibc symbol version: GLIBC_{highest[0]}.{highest[1]}", file=sys.stderr)
    print(tag)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
