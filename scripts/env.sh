# Sourced by the scripts: puts the Swift toolchain on PATH when it lives at /opt/swift.
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
    export PATH="/opt/swift/usr/bin:$PATH"
fi
# How release binaries are built (scripts/package, scripts/bench; README's install by hand): the Swift
# runtime linked statically, and lld packing the relative relocations (DT_RELR; glibc 2.36, Debian 12):
# 1.7 MB of .rela.dyn that every start read and applied become a few KB, 1.2 MB less idle RSS and a
# 1.8 MB smaller binary (issue 14, docs/performance.md).
# The binaries export no symbols (scripts/link/local-symbols.map): the toolchain's static link
# passes -export-dynamic, which put 29,000 names in .dynsym that every library lookup at start
# searched (2 MB of idle RSS); nothing looks them up (no plugin links against mrtdd).
MRTD_RELEASE_FLAGS=(-c release --static-swift-stdlib -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs)
MRTD_LINK_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/link"
MRTD_RELEASE_FLAGS+=(-Xlinker "--version-script=$MRTD_LINK_DIR/local-symbols.map")
# SwiftPM does not recompile when only a compiler flag passed with -Xfrontend changes (seen with
# -function-sections, dropped with the link order in issue 30). mrtd_release_scratch DIR empties a
# release build directory built with other flags.
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
