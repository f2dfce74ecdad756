#!/bin/sh
# Install Docent for the current user, from the unpacked tarball:
#   the app in ~/.local/lib/docent, `docent` in ~/.local/bin, a menu entry and its icon.
# PREFIX=/some/where ./install.sh installs under another prefix instead of ~/.local.
# Nothing here needs root, Python or the network. Undo it with uninstall.sh.
set -eu

here=$(cd "$(dirname "$0")" && pwd -P)
prefix=${PREFIX:-"$HOME/.local"}
app="$prefix/lib/docent"
bin="$prefix/bin"
apps="$prefix/share/applications"
icons="$prefix/share/icons/hicolor"

if [ ! -x "$here/docent" ] || [ ! -d "$here/_internal" ]; then
    echo "install.sh: run me from the unpacked Docent folder (no docent or _internal next to me)" >&2
    exit 1
fi

if [ "$here" != "$(cd "$app" 2>/dev/null && pwd -P || true)" ]; then
    mkdir -p "$prefix/lib"
    rm -rf "$app.new"
    cp -R "$here" "$app.new"          # copy first: an interrupted install leaves the old one
    rm -rf "$app"
    mv "$app.new" "$app"
fi

mkdir -p "$bin" "$apps" "$icons/scalable/apps" "$icons/256x256/apps"
ln -sfn "$app/docent" "$bin/docent"
cp "$app/share/docent.svg" "$icons/scalable/apps/docent.svg"
cp "$app/share/docent.png" "$icons/256x256/apps/docent.png"
sed -e "s|^Exec=.*|Exec=\"$app/docent\"|" -e "s|^TryExec=.*|TryExec=$app/docent|" \
    "$app/share/docent.desktop" > "$apps/docent.desktop"
chmod 644 "$apps/docent.desktop"

# Menus pick up the entry without these, but sooner with them (both may be missing).
if command -v update-desktop-database >/dev/null 2>&1; then
    update-desktop-database -q "$apps" || true
fi
if command -v gtk-update-icon-cache >/dev/null 2>&1 && [ -f "$icons/index.theme" ]; then
    gtk-update-icon-cache -q -t "$icons" || true
fi

echo "Docent is installed in $app"
echo "  menu entry: $apps/docent.desktop"
echo "  command:    $bin/docent   (the window; 'docent --help' lists the commands)"
case ":$PATH:" in
    *":$bin:"*) ;;
    *) echo "  $bin is not on your PATH: add it, or start $app/docent" ;;
esac
echo "Uninstall with $app/uninstall.sh"
