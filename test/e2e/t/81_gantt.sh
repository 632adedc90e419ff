#!/usr/bin/env bash
# mixdnn.gantt_svg() after jobs ran through a launcher: the SVG is valid
# XML with a bar per GPU of every part and plan in the window, and a real
# headless browser (Debian's chromium) renders it to a picture that is not
# empty: it has the bars' colored pixels.
. "$(dirname "$0")/../lib.sh"

BROWSER=$(command -v chromium || command -v chromium-browser)
[ -n "$BROWSER" ] || skip_all "chromium is not installed (tools/setup.sh installs it)"

reset_cluster
start_launcher n3
for i in 1 2 3; do submit "g-$i" hard v100 1 "$(job_cmd 0.3)" >/dev/null; done
wait_until 30 '[ "$(q "SELECT count(*) FROM mixdnn.jobs WHERE status = '"'completed'"'")" = 3 ]'
ok $? "three v100 jobs ran through the launcher"
stop_all_launchers
# Two long a100 jobs: the first takes both a100 nodes (no launcher there), the second is planned after it.
submit "g-big" hard a100 8 "$(job_cmd 1)" '1 hour' >/dev/null
submit "g-next" hard a100 4 "$(job_cmd 1)" '1 hour' >/dev/null
wait_until 10 '[ "$(q "SELECT count(*) FROM mixdnn.jobs WHERE name = '"'g-big'"' AND status = '"'launching'"'")" = 1 ]'
ok $? "g-big launched on n1 and n2; g-next waits for it"

q "SELECT mixdnn.gantt_svg(mixdnn.now() - interval '2 minutes', mixdnn.now() + interval '150 minutes')" >"$T/gantt.svg"
python3 - "$T/gantt.svg" <<-'PY'
	import sys, xml.etree.ElementTree as ET
	root = ET.parse(sys.argv[1]).getroot()
	ns = "{http://www.w3.org/2000/svg}"
	rects = root.findall(ns + "rect")
	ran = [r for r in rects if r.get("class") in ("ran", "running")]
	planned = [r for r in rects if r.get("class") == "planned"]
	# 3 one-GPU v100 parts + g-big's 8 a100 GPUs ran; g-next's 4 planned
	sys.exit(0 if root.tag == ns + "svg" and len(ran) == 11 and len(planned) == 4
	         and all(float(r.get("width")) > 0 for r in ran + planned) else 1)
PY
ok $? "a valid SVG document: 11 GPU bars of what ran or runs, 4 of what is planned"

height=$(sed -n 's/^<svg[^>]* height="\([0-9]*\)".*/\1/p' "$T/gantt.svg")
(cd "$T" && timeout 60 "$BROWSER" --headless --no-sandbox --disable-gpu --hide-scrollbars \
	--window-size="1200,${height:-400}" --screenshot="$T/gantt.png" "file://$T/gantt.svg" >"$T/chromium.log" 2>&1)
ok $? "headless chromium renders it"
python3 - "$T/gantt.png" <<-'PY'
	import struct, sys, zlib
	data = open(sys.argv[1], "rb").read()
	assert data[:8] == b"\x89PNG\r\n\x1a\n"
	pos, idat, hdr = 8, b"", None
	while pos < len(data):
	    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
	    body = data[pos + 8:pos + 8 + n]
	    if kind == b"IHDR":
	        hdr = struct.unpack(">IIBBBBB", body)
	    elif kind == b"IDAT":
	        idat += body
	    pos += 12 + n
	w, h, depth, ctype = hdr[:4]
	assert depth == 8 and ctype in (2, 6) and hdr[6] == 0, hdr
	bpp = 3 if ctype == 2 else 4
	raw, stride, prev, colored = zlib.decompress(idat), w * bpp, bytearray(w * bpp), 0
	for y in range(h):
	    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
	    for i in range(stride):
	        a = line[i - bpp] if i >= bpp else 0
	        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
	        if f == 1: line[i] = (line[i] + a) & 255
	        elif f == 2: line[i] = (line[i] + b) & 255
	        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
	        elif f == 4:
	            p = a + b - c
	            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
	            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
	    for x in range(0, stride, bpp):
	        r, g, bl = line[x:x + 3]
	        colored += max(r, g, bl) - min(r, g, bl) > 60
	    prev = line
	print("# %dx%d picture, %d colored pixels" % (w, h, colored))
	sys.exit(0 if colored > 3000 else 1)
PY
ok $? "the picture is not empty: the bars' colored pixels are there"
done_testing
