#!/usr/bin/env bash
# `make dist-check`: does the tarball `make dist` wrote work for a person with no Python,
# no virtualenv and no network? It is unpacked into an empty folder and run with an empty
# environment (env -i HOME=<empty> PATH=/usr/bin:/bin), in a network namespace with no
# network at all (unshare -n, when allowed):
#   1. every library the bundle's ELF files link to is found (ldd), no dangling symlinks;
#   2. `docent index` of the bundled samples, a scanned page (OCR) and a file of each
#      other format, `docent list`, `docent grep` of a word only the OCR can have read
#      and of a phrase of each format;
#   3. `docent ask`: an extractive answer with citations (no Ollama can be reached);
#   4. the window offscreen: it becomes usable, loads the model, checks Ollama, and quits
#      cleanly on SIGTERM; the process maps no file from a Python install or virtualenv;
#   5. the window under Xvfb, with this library and on a first run, each screenshotted
#      into dist/check/ (look at them);
#   6. install.sh and uninstall.sh into the empty HOME.
# Usage: dist_check.sh [VENV_BIN] (the venv's Python only draws the scan and reads JSON
# here; the bundle never sees it). DIST_TARBALL=... picks the tarball; KEEP=1 keeps the
# work folder.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd -P)
py="${1:-.venv/bin}/python"
timeout=${DIST_CHECK_TIMEOUT:-240}

tarball=${DIST_TARBALL:-$(ls -t dist/docent-*-linux-*.tar.gz 2>/dev/null | head -1 || true)}
if [ -z "$tarball" ] || [ ! -f "$tarball" ]; then
    echo "dist-check: no dist/docent-*.tar.gz; run make dist first" >&2
    exit 1
fi
work=$(mktemp -d /tmp/docent-dist-check.XXXXXX)
shots="$repo/dist/check"
mkdir -p "$work/unpacked" "$work/home" "$work/docs" "$shots"
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    if [ "${KEEP:-0}" = 1 ] || [ "${failed:-1}" = 1 ]; then
        echo "dist-check: work folder kept: $work"
    else
        rm -rf "$work"
    fi
}
trap cleanup EXIT
failed=1
ok() { echo "ok   $*"; }
fail() { echo "FAIL $*" >&2; exit 1; }

echo "dist-check: $tarball ($(du -h "$tarball" | cut -f1)) into $work"
tar -xzf "$tarball" -C "$work/unpacked"
app=$(echo "$work"/unpacked/docent-*)
[ -x "$app/docent" ] || fail "no executable docent in $app"
ok "unpacked: $(du -sm "$app" | cut -f1) MB"

nonet=()
if unshare -n true 2>/dev/null; then
    nonet=(unshare -n)
    ok "runs without network (unshare -n: not even loopback)"
else
    echo "note unshare -n is not allowed here: the network is not cut, only the environment"
fi
# The bundle as a person runs it: an empty environment and HOME, and no network.
run() { env -i HOME="$work/home" PATH=/usr/bin:/bin "${nonet[@]}" "$@"; }
docent="$app/docent"
log="$work/home/.local/share/docent/logs/docent.log"

# 1. Libraries ---------------------------------------------------------------------------
missing=$( (echo "$app/docent"; find "$app" -type f -name '*.so*') | tr '\n' '\0' |
    xargs -0 -n 50 env LD_LIBRARY_PATH="$app/_internal" ldd 2>/dev/null |
    grep "not found\|error while loading" | sort -u || true)
# The desktop's own libraries are never bundled (PyInstaller leaves out the GL and EGL
# drivers; Wayland's come with every Wayland session) and may be missing on a build box.
missing=$(echo "$missing" | grep -v -E "^\s*lib(wayland-[a-z]+|EGL|GL|GLX|OpenGL|vulkan)\.so" || true)
[ -z "$missing" ] || fail "libraries not found: $missing"
dangling=$(find "$app" -xtype l)
[ -z "$dangling" ] || fail "dangling symlinks: $dangling"
ok "every linked library is in the bundle or the system (GL/EGL/Wayland: the desktop's); no dangling symlinks"
# The OCR below runs cv2 with these stubs in place, and the window Qt with this ICU data.
for lib in libavcodec libavformat libavutil libswscale libavif; do
    f=$(ls "$app"/_internal/opencv_python_headless.libs/$lib-*.so* 2>/dev/null | head -1)
    [ -n "$f" ] && grep -q "the bundle leaves that library out" "$f" ||
        fail "OpenCV's $lib is not the stub packaging/stub_libs.py makes: ${f:-missing}"
done
icu=$(stat -c %s "$app/_internal/PySide6/Qt/lib/libicudata.so.73")
[ "$icu" -lt 20000000 ] || fail "libicudata.so.73 is $icu bytes: not the subset packaging/icu_subset.py makes"
ok "OpenCV's FFmpeg and AVIF libraries are stubs; Qt's ICU data is the subset ($((icu / 1000000)) MB)"

# 2. Index, list, grep -------------------------------------------------------------------
PYTHONPATH=tests "$py" - "$work/docs/harbour-scan.pdf" <<'PY'
import sys
from pathlib import Path
from scan_files import page_image, save_scan
save_scan(Path(sys.argv[1]), [page_image(
    ["Harbour Almanac", "Printed for the keepers of the coast.", "Lighthouse lamps were trimmed at dusk."]
)])
PY
# one file of each other format Docent reads (Word, PowerPoint, Excel, ODT, EPUB, HTML):
# the bundle leaves out parts of lxml and Pillow, so each is read inside it
PYTHONPATH=tests "$py" -c 'import sys; from pathlib import Path; from format_files import make_samples; make_samples(Path(sys.argv[1]))' "$work/docs"
run "$docent" --help > /dev/null || fail "docent --help"
run "$docent" index --json -q "$app/_internal/resources/samples" "$work/docs" > "$work/index.json" ||
    fail "docent index: $(cat "$work/index.json")"
"$py" - "$work/index.json" <<'PY' || fail "docent index reported: $(cat "$work/index.json")"
import json, sys
r = json.load(open(sys.argv[1]))
names = sorted(p.rsplit("/", 1)[1] for p in r["indexed"])
assert not r["failed"], r["failed"]
assert names == ["MANIFEST.tsv", "book.epub", "deck.pptx", "forensics-samples-files__a-text.pdf",
                 "harbour-scan.pdf", "ledger.xlsx", "notes.odt", "page.html", "report.docx",
                 "simh__ctss_hardware.pdf", "simh__vax780_doc.pdf"], names
print(f"     {len(names)} files, {r['chunks_embedded']} chunks in {r['seconds']:.0f} s")
PY
ok "docent index: the samples (3 PDFs and their manifest), a scan and six other formats, none failed"
run "$docent" list --json > "$work/list.json"
"$py" - "$work/list.json" <<'PY' || fail "docent list: $(cat "$work/list.json")"
import json, sys
docs = {d["file_name"]: d for d in json.load(open(sys.argv[1]))}
assert all(d["state"] == "ready" and d["chunks"] > 0 for d in docs.values()), docs
assert docs["harbour-scan.pdf"]["ocr_pages"] == 1, docs["harbour-scan.pdf"]
PY
ok "docent list: all ready, the scan read by OCR (1 page)"
run "$docent" grep --json "lighthouse" > "$work/grep.json"
grep -q '"harbour-scan.pdf"' "$work/grep.json" || fail "docent grep lighthouse: $(cat "$work/grep.json")"
ok "docent grep finds the scan's OCR'd text"
PYTHONPATH=tests "$py" - "$docent" "$work/home" "${nonet[@]}" <<'PY' || fail "docent grep in the other formats"
import json, subprocess, sys
from format_files import PHRASES
docent, home, *prefix = sys.argv[1:]
for name, (phrase, where) in PHRASES.items():
    out = subprocess.run([*prefix, docent, "grep", "--json", phrase], capture_output=True,
                         text=True, check=True, env={"HOME": home, "PATH": "/usr/bin:/bin"}).stdout
    hits = [(h["file_name"], h["location"]) for h in json.loads(out)]
    assert (name, where) in hits, (name, phrase, hits)
PY
ok "docent grep finds a phrase of each format at its place (§ section, slide, rows, chapter)"

# 3. Ask without Ollama ------------------------------------------------------------------
run "$docent" ask --json "What hardware did CTSS run on?" > "$work/ask.json" 2> "$work/ask.err" ||
    fail "docent ask: $(cat "$work/ask.err")"
"$py" - "$work/ask.json" <<'PY' || fail "docent ask: $(cat "$work/ask.json")"
import json, sys
a = json.load(open(sys.argv[1]))
assert a["mode"] == "extractive", a["mode"]
assert a["citations"], "no citations"
c = a["citations"][0]
print(f"     {len(a['citations'])} citations, the first {c['file_name']} p.{c['page']}: {c['text'][:60]!r}")
PY
ok "docent ask: an extractive answer with citations"

# 4./5. The window -----------------------------------------------------------------------
new_lines() {  # what the log got since this window started
    tail -c +$((wfrom + 1)) "$wlog" 2>/dev/null
}
wait_for() {  # wait_for PATTERN: until this window's log has PATTERN (fail if it dies first)
    local deadline=$((SECONDS + timeout))
    until grep -q "$1" < <(new_lines); do
        kill -0 "$wpid" 2>/dev/null || fail "the window exited before '$1': $(cat "$work/$wname.out")"
        [ $SECONDS -lt $deadline ] || fail "no '$1' within ${timeout}s (log: $wlog)"
        sleep 0.2
    done
}
foreign_maps() {  # files the process maps that come from a Python install or virtualenv
    grep -o '/[^ ]*' "/proc/$1/maps" | sort -u |
        grep -E "^$repo/|/\.venv/|/\.pyenv/|/site-packages/|/usr/lib/python3|/usr/local/lib/python3" || true
}
window() {  # window NAME HOME EXTRA_ENV...: start, wait until usable and warmed up
    wname=$1
    local home=$2
    shift 2
    mkdir -p "$home"
    wlog="$home/.local/share/docent/logs/docent.log"
    wfrom=$(stat -c %s "$wlog" 2>/dev/null || echo 0)
    env -i HOME="$home" PATH=/usr/bin:/bin "$@" "${nonet[@]}" "$docent" \
        > "$work/$wname.out" 2>&1 &
    wpid=$!
    pids+=("$wpid")
    wait_for "window usable after"
    wait_for "embedding model ready after"
    wait_for "Ollama checked after"
    local foreign
    foreign=$(foreign_maps "$wpid")
    [ -z "$foreign" ] || fail "the window maps files from outside the bundle: $foreign"
    new_lines | grep -o "window usable after.*\|embedding model ready after.*\|Ollama checked.*" |
        sed 's/^/     /' 
}
stop_window() {
    kill -TERM "$wpid"
    local rc=0
    wait "$wpid" || rc=$?
    [ "$rc" = 0 ] || fail "the window exited with $rc on SIGTERM: $(tail -5 "$work/$wname.out")"
    if grep -q "CRITICAL\|ERROR\|Traceback" < <(new_lines); then fail "errors in $wlog"; fi
}

window offscreen "$work/home" QT_QPA_PLATFORM=offscreen
stop_window
ok "window offscreen: usable, model loaded, Ollama checked, closed cleanly; nothing from a Python install mapped"

Xvfb -displayfd 3 -screen 0 1600x1000x24 -nolisten tcp 3> "$work/display" 2> "$work/xvfb.err" &
pids+=($!)
deadline=$((SECONDS + 30))
until [ -s "$work/display" ]; do
    [ $SECONDS -lt $deadline ] || fail "Xvfb did not start: $(cat "$work/xvfb.err")"
    sleep 0.1
done
display=":$(head -1 "$work/display")"
shot() {  # shot NAME: the whole screen, once the window has painted the health check
    import -display "$display" -window root "$shots/$1.png"
    echo "     screenshot: $shots/$1.png"
}
# the offscreen run saved its window size; a person's first window opens at the default
rm -f "$work/home/.local/share/docent/gui.ini"
window x11-library "$work/home" DISPLAY="$display"
shot library
stop_window
window x11-first-run "$work/first-run-home" DISPLAY="$display"
shot first-run
stop_window
ok "window under Xvfb ($display): usable, model loaded, closed cleanly; look at the screenshots"

# 6. install.sh / uninstall.sh -----------------------------------------------------------
run "$app/install.sh" > "$work/install.out" || fail "install.sh: $(cat "$work/install.out")"
local_=$work/home/.local
for f in lib/docent/docent bin/docent share/applications/docent.desktop \
         share/icons/hicolor/scalable/apps/docent.svg share/icons/hicolor/256x256/apps/docent.png; do
    [ -e "$local_/$f" ] || fail "install.sh did not make ~/.local/$f"
done
grep -q "^Exec=\"$local_/lib/docent/docent\"" "$local_/share/applications/docent.desktop" ||
    fail "the menu entry does not start the installed app"
if command -v desktop-file-validate > /dev/null; then
    desktop-file-validate "$local_/share/applications/docent.desktop" || fail "desktop-file-validate"
fi
run "$local_/bin/docent" list --json > "$work/list2.json" || fail "~/.local/bin/docent list"
"$py" -c 'import json, sys; assert len(json.load(open(sys.argv[1]))) == 11' "$work/list2.json" ||
    fail "docent list after install: $(cat "$work/list2.json")"
ok "install.sh: ~/.local/bin/docent runs (and sees the library), menu entry and icons in place"
run "$local_/lib/docent/uninstall.sh" > "$work/uninstall.out" || fail "uninstall.sh"
for f in lib/docent bin/docent share/applications/docent.desktop \
         share/icons/hicolor/scalable/apps/docent.svg; do
    [ ! -e "$local_/$f" ] || fail "uninstall.sh left ~/.local/$f"
done
[ -f "$log" ] || fail "uninstall.sh removed the library without --purge"
ok "uninstall.sh: removed the app, command, entry and icons; kept the library"

failed=0
echo "dist-check: all passed"
