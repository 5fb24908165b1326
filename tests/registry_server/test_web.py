"""The web pages in a real headless Chromium: they render, and skill text never runs as HTML or script."""

from __future__ import annotations

import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from nervous.testing.registry_process import RegistryProcess

from .conftest import call, publish, skill_folder

HOSTILE = ("<script>document.body.setAttribute('data-pwned','script')</script>\n\n"
           "<img src=x onerror=\"document.body.setAttribute('data-pwned','img')\">\n\n"
           "[link](javascript:document.body.setAttribute('data-pwned','link'))\n\n"
           "</div></main><script>document.title='PWNED'</script>")


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    pytest.skip("Chromium is not installed (apt-get install chromium; .ci/run installs it in CI)")
    raise AssertionError


def _browser(*args: str, tmp: Path) -> subprocess.CompletedProcess[str]:
    cmd = [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
           "--no-first-run", "--disable-extensions", f"--user-data-dir={tmp / 'chrome-profile'}", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def _png_colours(path: Path) -> int:
    """Distinct colours in an 8-bit RGB(A) PNG (stdlib decoder; enough to tell a blank page)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width, height, channels = 8, b"", 0, 0, 4
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", chunk[:10])
            assert depth == 8 and colour in (2, 6)
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    colours: set[bytes] = set()
    prev = bytearray(stride)
    for y in range(height):
        line = raw[y * (stride + 1):(y + 1) * (stride + 1)]
        ftype, cur = line[0], bytearray(line[1:])
        for i in range(stride):
            a = cur[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            if ftype == 1:
                cur[i] = (cur[i] + a) & 255
            elif ftype == 2:
                cur[i] = (cur[i] + b) & 255
            elif ftype == 3:
                cur[i] = (cur[i] + (a + b) // 2) & 255
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                cur[i] = (cur[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        if y % 4 == 0:
            colours.update(bytes(cur[x:x + 3]) for x in range(0, stride, channels * 4))
        prev = cur
    return len(colours)


@pytest.fixture
def hostile(server: RegistryProcess, alice: str, tmp_path: Path) -> str:
    folder = skill_folder(tmp_path / "src", "sneaky", "<b>bold</b> & \"quoted\" <script>alert(1)</script>",
                          {"scripts/run.sh": "echo hi\n"}, body=HOSTILE)
    publish(server, alice, folder, "1.0.0", display_name="<i>Sneaky</i>")
    return f"{server.url}/alice/skills/sneaky"


def test_page_escapes_all_skill_text(hostile: str) -> None:
    page = call("GET", hostile)
    assert page.status == 200 and page.headers["content-type"].startswith("text/html")
    assert "script-src" not in page.headers["content-security-policy"]
    assert "default-src 'none'" in page.headers["content-security-policy"]
    html = page.text
    assert "<script" not in html.lower() and "onerror=" not in html.replace("onerror=&quot;", "")
    assert "&lt;script&gt;document.body.setAttribute" in html
    assert "&lt;i&gt;Sneaky&lt;/i&gt;" in html and "<i>Sneaky" not in html
    assert "href='javascript" not in html and 'href="javascript' not in html


def test_browser_renders_pages_and_runs_no_skill_script(hostile: str, server: RegistryProcess, tmp_path: Path) -> None:
    dom = _browser("--virtual-time-budget=2000", "--dump-dom", hostile, tmp=tmp_path)
    assert dom.returncode == 0, dom.stderr[-2000:]
    out = dom.stdout
    assert "data-pwned" not in out.split("<body", 1)[1].split(">", 1)[0]
    assert "PWNED" not in out.split("</title>", 1)[0]
    assert "<title>&lt;i&gt;Sneaky&lt;/i&gt;" in out
    assert "nervous install clawhub:@alice/sneaky" in out and "clawhub --registry" in out
    assert "scripts/run.sh" in out and "Versions" in out
    shot = tmp_path / "skill.png"
    res = _browser("--window-size=1200,900", "--hide-scrollbars", f"--screenshot={shot}", hostile, tmp=tmp_path)
    assert res.returncode == 0 and shot.is_file(), res.stderr[-2000:]
    assert _png_colours(shot) > 8  # text, verdict badge and code blocks: not a blank page

    search = _browser("--virtual-time-budget=2000", "--dump-dom", f"{server.url}/?q=sneaky", tmp=tmp_path)
    assert "/alice/skills/sneaky" in search.stdout and "&lt;i&gt;Sneaky&lt;/i&gt;" in search.stdout
