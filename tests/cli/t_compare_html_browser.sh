# `berth compare TASK --html FILE` writes one self-contained page that a real browser (Debian's
# headless chromium) shows without any server: a summary row per attempt, each attempt's diff side
# by side per file, binary files named as such; a `<script>` an attempt planted in a file's content
# or in a file's name is shown as text and runs nothing. The screenshot is kept in
# $TEST_ARTIFACT_DIR (build/<preset>/artifacts/t_compare_html_browser.png). Skipped (77) only where
# chromium is not installed; scripts/bootstrap installs it.
. "$(dirname "$0")/common.sh"
command -v chromium >/dev/null || skip "chromium is not installed (scripts/bootstrap installs it)"
make_repo app
for n in $(seq 1 30); do echo "line $n"; done >long.txt
git add long.txt && git commit -qm long
for i in 1 2 3; do berth new "h-$i" >/dev/null; done
ws1=$(berth path h-1) ws2=$(berth path h-2) ws3=$(berth path h-3)
# Planted scripts: each would mark the page if it ran (an element with id "pwned", or the title).
cat >"$ws1/page.html" <<'HTML'
<script>document.title = "pwned"; document.body.id = "pwned";</script>
<div id="planted">planted</div><img src=x onerror="document.body.id='pwned'">
HTML
touch "$ws1/<img src=x onerror=\"document.title='pwned'\">.txt"
echo "one" >>"$ws1/README.md"
echo "two" >>"$ws2/README.md"
printf 'a\0b' >"$ws2/blob.bin"
sed -i 's/^line 15$/line fifteen/' "$ws3/long.txt"

page="$T/review/compare.html"
mkdir -p "$T/review"
doc=$(berth --json compare h --html "$page")
assert_eq "$(jq -r .html <<<"$doc")" "$page"
[[ -s $page ]]
# Self-contained: no URL to fetch, and scripts forbidden by the page's policy.
not 1 grep -Eiq '(src|href)="?(https?:|//)' "$page"
grep -q "Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\"" "$page"

# The browser: a profile of its own under $T; whatever it starts is stopped by the end.
profile="$T/chromium-profile"
browse() {
  timeout 60 chromium --headless --disable-gpu --no-sandbox --no-first-run \
    --user-data-dir="$profile" --disable-features=Translate "$@" "file://$page" 2>"$T/chromium.err"
}
dom=$(browse --dump-dom)
rows=$(grep -o '<tr class="attempt">' <<<"$dom" | wc -l)
assert_eq "$rows" 3 "summary rows"
for i in 1 2 3; do
  assert_contains "$dom" "<div class=\"col\" data-attempt=\"h-$i\">"
done
# Each attempt's own lines, marked as added or removed, in its column.
assert_contains "$dom" '<ins class="add">+one</ins>'
assert_contains "$dom" '<ins class="add">+two</ins>'
assert_contains "$dom" '<del class="del">-line 15</del>'
assert_contains "$dom" '<p class="binary">binary</p>'
# long.txt's unchanged lines around its change are folded.
assert_contains "$dom" '<details><summary>'
# Nothing planted ran or became an element: the title is berth's, no element says pwned.
assert_contains "$dom" '<title>berth compare: h</title>'
assert_not_contains "$dom" 'id="pwned"'
assert_not_contains "$dom" '<div id="planted">'
assert_not_contains "$dom" '<img src="x"'
assert_contains "$dom" '&lt;script&gt;document.title = "pwned"'
assert_contains "$dom" "&lt;img src=x onerror=\"document.title='pwned'\"&gt;.txt"

shot="$T/compare.png"
browse --screenshot="$shot" --window-size=1280,900 >/dev/null
[[ -s $shot ]]
if [[ -n ${TEST_ARTIFACT_DIR:-} ]]; then
  mkdir -p "$TEST_ARTIFACT_DIR"
  cp "$shot" "$TEST_ARTIFACT_DIR/t_compare_html_browser.png"
  cp "$page" "$TEST_ARTIFACT_DIR/t_compare_html_browser.html"
fi
# No chromium process of this test is left behind (its profile path names them).
for _ in $(seq 1 50); do
  pgrep -f -- "--user-data-dir=$profile" >/dev/null || break
  sleep 0.1
done
not 1 pgrep -f -- "--user-data-dir=$profile" >/dev/null
