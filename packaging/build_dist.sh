#!/usr/bin/env bash
# `make dist`: the PyInstaller one-folder bundle, then the tarball a person downloads:
#   dist/docent-<version>-linux-x86_64/      docent, _internal/, install.sh, uninstall.sh, share/
#   dist/docent-<version>-linux-x86_64.tar.gz
# and the sizes (the target is <= 500 MB unpacked). Usage: build_dist.sh VENV_BIN
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-.venv/bin}

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' pyproject.toml)
name="docent-$version-linux-$(uname -m)"
stage="dist/$name"

"$bin/pyinstaller" --noconfirm --clean --log-level WARN \
    --distpath dist --workpath build/pyinstaller packaging/docent.spec

"$bin/python" packaging/strip_bundle.py dist/docent
rm -rf "$stage" "$stage.tar.gz"
mv dist/docent "$stage"
mkdir -p "$stage/share"
cp packaging/linux/install.sh packaging/linux/uninstall.sh "$stage/"
cp packaging/linux/docent.desktop "$stage/share/"
cp resources/icons/docent.svg packaging/icons/docent.png "$stage/share/"
cat > "$stage/README.txt" <<TXT
Docent $version for Linux x86_64: chat with your own documents, locally.

Run it from here:        ./docent            (the window; ./docent --help lists the commands)
Install it for yourself: ./install.sh        (~/.local: a menu entry and the docent command)
Remove it:               ~/.local/lib/docent/uninstall.sh

It needs no Python and no network. The window needs the usual desktop libraries
(OpenGL/EGL, fontconfig, xkbcommon, and on X11 libxcb-cursor); see the project README.
Answers come from a local Ollama when one runs (ollama serve; ollama pull <model>),
and are quoted from your documents (extractive) when none does.
TXT
tar -C dist -czf "$stage.tar.gz" "$name"

unpacked=$(du -sb "$stage" | cut -f1)
packed=$(stat -c %s "$stage.tar.gz")
echo
echo "dist: $stage.tar.gz"
awk -v u="$unpacked" -v p="$packed" 'BEGIN {
    printf "size: %.0f MB unpacked (%.0f MiB; target <= 500 MB), %.0f MB download\n",
        u / 1e6, u / 1048576, p / 1e6 }'
echo "largest parts (MB):"
du -sb "$stage"/_internal/* | sort -rn | awk 'NR <= 12 { printf "  %6.1f  %s\n", $1 / 1e6, $2 }'
