#!/usr/bin/env bash
# Builds DIR: a fresh Debian root holding only the C library, libjansson4 and libpcre2-8-0, the
# shared libraries the release binary needs (`readelf -d`: libc, libm, libgcc_s, libstdc++,
# libjansson and libpcre2-8), from this machine's Debian mirror: apt-get download of libc6,
# libgcc-s1, libstdc++6 (with its gcc-N-base), libjansson4 and libpcre2-8-0, unpacked with dpkg -x. No shell, no
# Swift, nothing else: Tests/dist runs the release archive in it with chroot.
set -euo pipefail
dir=${1:?usage: fresh-root.sh DIR}
rm -rf "$dir"
mkdir -p "$dir/.debs"
if ! apt-cache show libjansson4 >/dev/null 2>&1; then  # a machine whose package lists were never fetched
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
fi
base=$(apt-cache depends libstdc++6 | grep -o 'gcc-[0-9]*-base' | head -1)
(cd "$dir/.debs" && apt-get download -qq libc6 libgcc-s1 "$base" libstdc++6 libjansson4 libpcre2-8-0)
for deb in "$dir"/.debs/*.deb; do dpkg -x "$deb" "$dir"; done
rm -rf "$dir/.debs"
mkdir -p "$dir/tmp" "$dir/usr/local"
chmod 1777 "$dir/tmp"
