#!/usr/bin/env bash
# Builds DIR: a fresh Debian root holding only the C library, libjansson4, libpcre2-8-0 and libpq5, the
# shared libraries the release binary needs (`readelf -d`: libc, libm, libgcc_s, libstdc++,
# libjansson, libpcre2-8 and libpq with what it loads), from this machine's Debian mirror: apt-get download of libc6,
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
# libpq5 (the session hub's client) and the libraries it loads (`ldd`, each mapped to its package
# with `dpkg -S`): what `apt-get install libpq5` brings onto a minimal Debian 12.
libpq=(libpq5 libssl3 libgssapi-krb5-2 libkrb5-3 libk5crypto3 libkrb5support0 libcom-err2 libkeyutils1
  libldap-2.5-0 libsasl2-2 libgnutls30 libp11-kit0 libffi8 libidn2-0 libunistring2 libtasn1-6 libnettle8
  libhogweed6 libgmp10)
(cd "$dir/.debs" && apt-get download -qq libc6 libgcc-s1 "$base" libstdc++6 libjansson4 libpcre2-8-0 "${libpq[@]}")
for deb in "$dir"/.debs/*.deb; do dpkg -x "$deb" "$dir"; done
rm -rf "$dir/.debs"
mkdir -p "$dir/tmp" "$dir/usr/local"
chmod 1777 "$dir/tmp"
