#!/usr/bin/env bash
# The root filesystem of seam's bundle-only image: the seam binary, the shared libraries it links
# (found with ldd), CA certificates for webhooks, and a bundle of `seam build`; nothing else (no
# shell, no clang). The Containerfile copies it into an image FROM scratch; the container test
# runs it as an OCI bundle with runc. Usage: image-rootfs.sh SEAM BUNDLE DEST
set -euo pipefail
seam=$1 bundle=$2 dest=$3
[[ -x $seam ]] || { echo "image-rootfs: $seam is not an executable" >&2; exit 2; }
[[ -f $bundle ]] || { echo "image-rootfs: no bundle at $bundle (seam build -o FILE)" >&2; exit 2; }
mkdir -p "$dest"/{usr/bin,usr/share/seam,etc/ssl/certs,proc,sys,dev,tmp,run,var/cache/seam}
chmod 1777 "$dest/tmp"
install -m 0755 "$seam" "$dest/usr/bin/seam"
# The loader and every library, at the paths ldd resolves them to (symlinks followed); and
# libcurl with its libraries, which seam opens only when a webhook or --pods needs it (dlopen).
curl=$(ldconfig -p | awk '/libcurl\.so\.4 .*x86-64/ && !found {print $NF; found = 1}')
[[ -n $curl ]] || { echo "image-rootfs: no libcurl.so.4 (webhooks need it)" >&2; exit 2; }
{ echo "$curl"; ldd "$seam"; ldd "$curl"; } | awk '/=>/ && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}' | sort -u |
  while read -r lib; do
    cp -L --parents "$lib" "$dest/"
  done
# The loader is looked up by the path in the binary's PT_INTERP, often /lib64/...: keep that link.
interp=$(readelf -l "$seam" | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
[[ -n $interp && ! -e $dest$interp ]] && cp -L --parents "$interp" "$dest/"
[[ -f /etc/ssl/certs/ca-certificates.crt ]] && cp /etc/ssl/certs/ca-certificates.crt "$dest/etc/ssl/certs/"
install -m 0644 "$bundle" "$dest/usr/share/seam/rules.seamb"
printf 'root:x:0:0:root:/:/usr/bin/seam\n' >"$dest/etc/passwd"
printf 'root:x:0:\n' >"$dest/etc/group"
