#!/bin/sh
# Remove what install.sh added: the app, the `docent` command, the menu entry and icon.
# Your library (documents index, settings, logs) stays unless you pass --purge.
# PREFIX as given to install.sh (default ~/.local).
set -eu

prefix=${PREFIX:-"$HOME/.local"}
app="$prefix/lib/docent"
purge=no
case "${1:-}" in
    --purge) purge=yes ;;
    "") ;;
    *) echo "usage: uninstall.sh [--purge]   (--purge also deletes your Docent library and settings)" >&2; exit 2 ;;
esac

if [ -L "$prefix/bin/docent" ] && [ "$(readlink "$prefix/bin/docent")" = "$app/docent" ]; then
    rm -f "$prefix/bin/docent"
fi
rm -f "$prefix/share/applications/docent.desktop" \
      "$prefix/share/icons/hicolor/scalable/apps/docent.svg" \
      "$prefix/share/icons/hicolor/256x256/apps/docent.png"
rm -rf "$app"
if command -v update-desktop-database >/dev/null 2>&1; then
    update-desktop-database -q "$prefix/share/applications" 2>/dev/null || true
fi
echo "Docent is uninstalled from $app"

data="${XDG_DATA_HOME:-$HOME/.local/share}/docent"
config="${XDG_CONFIG_HOME:-$HOME/.config}/docent"
if [ "$purge" = yes ]; then
    rm -rf "$data" "$config"
    echo "Deleted your library ($data) and settings ($config)."
else
    echo "Your library and settings are kept: $data and $config"
    echo "(uninstall.sh --purge deletes them; a library set elsewhere by data_dir or DOCENT_HOME is never touched)"
fi
