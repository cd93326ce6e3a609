# Sourced by the scripts: puts the Swift toolchain on PATH when it lives at /opt/swift.
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
    export PATH="/opt/swift/usr/bin:$PATH"
fi
# How release binaries are built (scripts/package, scripts/bench; README's install by hand): the Swift
# runtime linked statically, and lld packing the relative relocations (DT_RELR; glibc 2.36, Debian 12):
# 1.7 MB of .rela.dyn that every start read and applied become a few KB, 1.2 MB less idle RSS and a
# 1.8 MB smaller binary (issue 14, docs/performance.md).
# The Swift compiler puts each function in a section of its own (-function-sections), so that the
# release link's --gc-sections drops the unused ones one by one: without it the stripped mrtdd is
# 0.8 MB larger (27.1 MB instead of 26.3; .text +0.5 MB). (It also let lld follow a function order
# file, removed in issue 30.)
# The binaries export no symbols (scripts/link/local-symbols.map): the toolchain's static link
# passes -export-dynamic, which put 29,000 names in .dynsym that every library lookup at start
# searched (2 MB of idle RSS); nothing looks them up (no plugin links against mrtdd).
MRTD_RELEASE_FLAGS=(-c release --static-swift-stdlib -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs
    -Xswiftc -Xfrontend -Xswiftc -function-sections)
MRTD_LINK_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/link"
MRTD_RELEASE_FLAGS+=(-Xlinker "--version-script=$MRTD_LINK_DIR/local-symbols.map")
# SwiftPM does not recompile when only a compiler flag passed with -Xfrontend changes (seen with
# -function-sections). mrtd_release_scratch DIR empties a release build directory built with other
# flags.
mrtd_release_scratch() {
    local dir=$1 want="${MRTD_RELEASE_FLAGS[*]}"
    local stamp="$dir/.mrtd-release-flags"
    if [ -d "$dir" ] && [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
        echo "release flags differ from those $dir was built with: building it from scratch" >&2
        rm -rf "$dir"
    fi
    mkdir -p "$dir"
    printf '%s' "$want" > "$stamp"
}
