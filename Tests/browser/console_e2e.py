#!/usr/bin/env python3
"""Drives `mrtdctl console` in headless Chromium over the DevTools protocol (--remote-debugging-pipe),
end to end: the specimen's MRZ key typed with the keyboard only, the read submitted with Enter, the
verdict, face and holder checked in the DOM, screenshots taken and checked. Then the console's gate is
attacked over plain HTTP (no token, wrong token, wrong Host, cross-origin POST, unlisted routes).

Standard library only. Usage: console_e2e.py URL OUTDIR [CHROMIUM]. Exit 0 when every assertion holds;
otherwise prints each failure and exits 1. Run by Tests/MRTDDaemonTests/ConsoleTests.swift."""
import fcntl
import http.client
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import urllib.parse
import zlib

failures = []


def check(condition, what):
    print(("ok   " if condition else "FAIL ") + what, flush=True)
    if not condition:
        failures.append(what)
    return condition


class Chromium:
    """A headless Chromium and one page session, over the DevTools pipe (fd 3 in, fd 4 out)."""

    def __init__(self, binary, profile):
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()

        def wire():
            # Out of the way first (the pipe ends may themselves be 3 or 4), then onto 3 and 4.
            a = fcntl.fcntl(to_chrome_r, fcntl.F_DUPFD, 10)
            b = fcntl.fcntl(from_chrome_w, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.process = subprocess.Popen(
            [binary, "--headless=new", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
             "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--hide-scrollbars",
             "--force-device-scale-factor=1", "--window-size=1200,900", "--user-data-dir=" + profile,
             "about:blank"],
            pass_fds=(3, 4, to_chrome_r, from_chrome_w), preexec_fn=wire,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buffer = b""
        self.next_id = 0
        self.events = []
        self.session = None

    def send(self, method, params=None, session=True, timeout=60):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self.to_chrome, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self.receive(deadline)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def receive(self, deadline):
        while b"\0" not in self.buffer:
            if time.monotonic() > deadline:
                raise TimeoutError("no answer from Chromium")
            chunk = os.read(self.from_chrome, 1 << 16)
            if not chunk:
                raise RuntimeError("Chromium closed the DevTools pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def open_page(self):
        targets = self.send("Target.getTargets", session=False)["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.send("Target.attachToTarget", {"targetId": page["targetId"], "flatten": True}, session=False)["sessionId"]
        self.send("Page.enable")
        self.send("Runtime.enable")
        self.send("Emulation.setDeviceMetricsOverride", {"width": 1200, "height": 900, "deviceScaleFactor": 1, "mobile": False})

    def evaluate(self, expression):
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.evaluate(expression):
                return True
            time.sleep(0.1)
        return False

    KEYS = {"Tab": 9, "Enter": 13, "Backspace": 8, "ArrowRight": 39, "ArrowDown": 40}

    def key(self, name, shift=False):
        code = self.KEYS[name]
        extra = {"text": "\r"} if name == "Enter" else {}
        modifiers = {"modifiers": 8} if shift else {}
        self.send("Input.dispatchKeyEvent", {"type": "rawKeyDown", "key": name, "code": name, "windowsVirtualKeyCode": code, **modifiers})
        if extra:
            self.send("Input.dispatchKeyEvent", {"type": "char", "key": name, "code": name, "windowsVirtualKeyCode": code, **extra})
        self.send("Input.dispatchKeyEvent", {"type": "keyUp", "key": name, "code": name, "windowsVirtualKeyCode": code, **modifiers})

    def tab_to(self, element_id, limit=12):
        for _ in range(limit):
            if self.evaluate("document.activeElement.id") == element_id:
                return True
            self.key("Tab")
        return self.evaluate("document.activeElement.id") == element_id

    def verdict_box(self):
        return self.evaluate("(() => { const r = document.getElementById('verdict').getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; })()")

    def type(self, text):
        for c in text:
            code = ("Key" + c.upper()) if c.isalpha() else ("Digit" + c if c.isdigit() else "")
            vk = ord(c.upper())
            self.send("Input.dispatchKeyEvent", {"type": "keyDown", "key": c, "code": code, "text": c, "windowsVirtualKeyCode": vk})
            self.send("Input.dispatchKeyEvent", {"type": "keyUp", "key": c, "code": code, "windowsVirtualKeyCode": vk})

    def screenshot(self, path):
        import base64
        width = self.evaluate("document.documentElement.scrollWidth")
        check(width <= 1200, f"{os.path.basename(path)}: no horizontal overflow (page {width} px wide)")
        data = base64.b64decode(self.send("Page.captureScreenshot", {"format": "png"})["data"])
        with open(path, "wb") as f:
            f.write(data)
        return decode_png(data)

    def close(self):
        try:
            self.send("Browser.close", session=False, timeout=10)
        except Exception:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def decode_png(data):
    """(width, height, rows of (r, g, b)) of an 8-bit non-interlaced RGB/RGBA PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, color, _, _, interlace = header
    assert depth == 8 and color in (2, 6) and interlace == 0, f"unsupported PNG {header}"
    channels = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous, i = [], bytearray(stride), 0
    for _ in range(height):
        kind, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - channels] if x >= channels else 0
            b = previous[x]
            c = previous[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + a) & 255
            elif kind == 2:
                line[x] = (line[x] + b) & 255
            elif kind == 3:
                line[x] = (line[x] + ((a + b) >> 1)) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x:x + 3]) for x in range(0, stride, channels)])
        previous = line
    return width, height, rows


def check_screenshot(name, image, expect_color=None, box=None):
    width, height, rows = image
    check((width, height) == (1200, 900), f"{name}: 1200x900 (got {width}x{height})")
    colors = {rows[y][x] for y in range(0, height, 7) for x in range(0, width, 7)}
    check(len(colors) > 20, f"{name}: not blank ({len(colors)} distinct sampled colours)")
    if expect_color and box:
        x0, y0, x1, y1 = (int(v) for v in box)
        samples = [rows[y][x] for y in range(max(y0 + 2, 0), min(y1 - 2, height), 3) for x in range(max(x0 + 2, 0), min(x0 + 40, width), 3)]
        near = sum(1 for p in samples if all(abs(p[k] - expect_color[k]) <= 24 for k in range(3)))
        check(samples and near / len(samples) > 0.6,
              f"{name}: the verdict banner is painted {expect_color} ({near}/{len(samples)} samples)")


def attack(url):
    parts = urllib.parse.urlsplit(url)
    host, port, token = parts.hostname, parts.port, parts.path.strip("/")

    def request(method, path, host_header=f"127.0.0.1:{port}", headers=None, body=None):
        connection = http.client.HTTPConnection(host, port, timeout=30)
        connection.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        if host_header is not None:
            connection.putheader("Host", host_header)
        for k, v in (headers or {}).items():
            connection.putheader(k, v)
        if body is not None:
            connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body)
        answer = connection.getresponse()
        data = answer.read()
        connection.close()
        return answer.status, dict((k.lower(), v) for k, v in answer.getheaders()), data

    wrong = ("0" if token[0] != "0" else "1") + token[1:]
    for label, path in [("no token", "/"), ("no token, an API route", "/api/readers"), ("a wrong token of the same length", f"/{wrong}/"),
                        ("a wrong token on the API", f"/{wrong}/api/readers"), ("the token's prefix", f"/{token[:-1]}/"),
                        ("the token plus a character", f"/{token}0/"), ("the token in another segment", f"/x/{token}/")]:
        status, _, _ = request("GET", path)
        check(status == 403, f"{label} → 403 (got {status})")
    status, _, body = request("GET", f"/{token}/")
    check(status == 200 and b"mrtdd operator console" in body, f"the right token and Host → 200 (got {status})")
    for label, host_header in [("a rebinding Host", f"evil.example:{port}"), ("Host without the port", "127.0.0.1"),
                               ("Host with another port", f"127.0.0.1:{port + 1}"), ("no Host", None)]:
        status, _, body = request("GET", f"/{token}/api/readers", host_header=host_header)
        check(status in (400, 403, 421) and b"readers" not in body, f"{label} → refused (got {status})")
    status, _, _ = request("GET", f"/{token}/api/readers", host_header=f"localhost:{port}")
    check(status == 200, f"Host localhost:PORT → 200 (got {status})")
    status, headers, _ = request("GET", f"/{token}/api/readers", headers={"Origin": "https://evil.example"})
    check(not any(k.startswith("access-control-") for k in headers), "no CORS headers, even when asked with an Origin")
    status, _, _ = request("POST", f"/{token}/api/reads", headers={"Origin": "https://evil.example", "Content-Type": "application/json"},
                           body=b'{"access":{"can":"123456"}}')
    check(status == 403, f"a cross-origin POST → 403 (got {status})")
    status, _, _ = request("POST", f"/{token}/api/reads", headers={"Content-Type": "text/plain"}, body=b'{"access":{"can":"123456"}}')
    check(status == 415, f"a POST that is not application/json → 415 (got {status})")
    for path in ["/metrics", "/v1/health", "/api/health", "/api/../v1/health", "/api/reads/..%2F..%2Fmetrics/face", "/api/reads/a/b"]:
        status, _, body = request("GET", f"/{token}{path}")
        check(status == 404 and b"mrtdd_" not in body, f"unlisted route {path} → 404 (got {status})")
    status, headers, _ = request("PUT", f"/{token}/api/readers")
    check(status == 405, f"PUT on a proxied route → 405 (got {status})")
    status, headers, _ = request("GET", f"/{token}/")
    csp = headers.get("content-security-policy", "")
    check("default-src 'self'" in csp and "frame-ancestors 'none'" in csp, f"the page has a strict CSP ({csp})")
    check(headers.get("referrer-policy") == "no-referrer", "the page sends no Referer (the token is in the URL)")


def type_mrz_key(browser, number, birth, expiry):
    """Types an MRZ key from the document number field on, Tab past each check digit (left empty)."""
    for text in [number, birth, expiry]:
        browser.type(text)
        if text != expiry:
            browser.key("Tab")
            browser.key("Tab")


def open_console(argv):
    """From `URL OUTDIR [CHROMIUM]`: the URL, the output folder (made), a Chromium profile folder and a
    Chromium showing the console page (its load checked). Shared with console_invalid.py."""
    url, out = argv[1], argv[2]
    binary = argv[3] if len(argv) > 3 else (shutil.which("chromium") or "chromium")
    os.makedirs(out, exist_ok=True)
    profile = tempfile.mkdtemp(prefix="mrtdd-console-chromium-")
    browser = Chromium(binary, profile)
    browser.open_page()
    browser.send("Page.navigate", {"url": url})
    check(browser.wait_for("document.readyState === 'complete' && !!document.getElementById('docno')", 60), "the console page loads")
    return url, out, profile, browser


def main():
    url, out, profile, browser = open_console(sys.argv)
    started = time.monotonic()
    try:
        check(browser.wait_for("document.getElementById('readers').textContent.includes('Virtual Reader 0')", 30),
              "the live readers list shows the daemon's reader")
        check(browser.wait_for("document.getElementById('connection').textContent === 'connected to mrtdd'", 30), "connected to mrtdd")
        check(browser.evaluate("document.activeElement.id") == "docno", "the document number field has the focus at start")
        check(browser.evaluate("[...document.querySelectorAll('input,select')].every(e => e.labels && e.labels.length > 0)"),
              "every input has a label")
        check_screenshot("01-ready", browser.screenshot(os.path.join(out, "01-ready.png")))

        # Keyboard only: type, Tab, type; a wrong check digit is flagged as typed, then corrected.
        browser.type("L898902C3")
        browser.key("Tab")
        check(browser.evaluate("document.activeElement.id") == "docno-cd", "Tab moves to the document number's check digit")
        browser.type("5")
        check("does not match" in browser.evaluate("document.getElementById('docno-check').textContent"),
              "a wrong check digit (5) is flagged as typed")
        check(browser.evaluate("document.getElementById('docno-cd').getAttribute('aria-invalid')") == "true",
              "the wrong check digit field is aria-invalid")
        browser.key("Backspace")
        browser.type("6")
        check("matches" in browser.evaluate("document.getElementById('docno-check').textContent"), "check digit 6 matches L898902C3")
        for field, value, digit in [("dob", "740812", "2"), ("doe", "120415", "9")]:
            browser.key("Tab")
            check(browser.evaluate("document.activeElement.id") == field, f"Tab moves to {field}")
            browser.type(value)
            browser.key("Tab")
            check(browser.evaluate("document.activeElement.id") == field + "-cd", f"Tab moves to {field}'s check digit")
            browser.type(digit)
            check("matches" in browser.evaluate(f"document.getElementById('{field}-check').textContent"), f"check digit {digit} matches {value}")
        browser.send("Input.dispatchKeyEvent", {"type": "rawKeyDown", "key": "Tab", "code": "Tab", "windowsVirtualKeyCode": 9})
        browser.send("Input.dispatchKeyEvent", {"type": "keyUp", "key": "Tab", "code": "Tab", "windowsVirtualKeyCode": 9})
        browser.send("Input.dispatchKeyEvent", {"type": "rawKeyDown", "key": "Tab", "code": "Tab", "windowsVirtualKeyCode": 9, "modifiers": 8})
        browser.send("Input.dispatchKeyEvent", {"type": "keyUp", "key": "Tab", "code": "Tab", "windowsVirtualKeyCode": 9, "modifiers": 8})
        check(browser.evaluate("document.activeElement.id") == "doe-cd", "Shift-Tab goes back")
        check_screenshot("02-entered", browser.screenshot(os.path.join(out, "02-entered.png")))

        submitted = time.monotonic()
        browser.key("Enter")  # implicit submission from the last field
        check(browser.wait_for("!document.getElementById('progress-section').hidden && document.getElementById('progress').value > 0"
                               " && document.getElementById('phase').textContent.includes('%')", 30),
              "progress shows while the chip is read: " + str(browser.evaluate("document.getElementById('phase').textContent")))
        check(browser.evaluate("document.activeElement.id") == "cancel", "the Cancel button has the focus during the read")
        check_screenshot("02b-progress", browser.screenshot(os.path.join(out, "02b-progress.png")))
        check(browser.wait_for("!document.getElementById('result-section').hidden", 90), "Enter submits; a verdict shows")
        verdict_seconds = time.monotonic() - submitted
        check(browser.evaluate("document.getElementById('verdict').className") == "verdict valid",
              "the verdict is valid (green): " + str(browser.evaluate("document.getElementById('verdict').textContent")))
        check(browser.wait_for("(() => { const i = document.getElementById('face'); return i.complete && i.naturalWidth > 0; })()", 30),
              "the face image loaded")
        size = browser.evaluate("[document.getElementById('face').naturalWidth, document.getElementById('face').naturalHeight]")
        check(size == [480, 600], f"the face is the specimen's 480x600 image (got {size})")
        check("ERIKSSON, ANNA MARIA" == browser.evaluate("document.getElementById('holder-name').textContent"), "the holder's name shows")
        check("L898902C3" in browser.evaluate("document.getElementById('holder').textContent"), "the document number shows")
        checks_text = browser.evaluate("document.getElementById('checks').textContent")
        check("Passive authentication" in checks_text and "passed" in checks_text, "passive authentication is explained: " + checks_text[:160])
        items = browser.evaluate("[...document.querySelectorAll('#checks li')].map(li => li.textContent)")
        check(len(items) >= 3 and all(": " in t for t in items), f"each check is listed with its result ({len(items)} checks)")
        check(all(" — " in t for t in items if not t.split(": ")[-1].startswith("passed")),
              "every check that did not pass says why in words: " + " | ".join(items))
        check(browser.evaluate("document.activeElement.id") == "verdict", "the verdict takes the focus (screen readers announce it)")
        check_screenshot("03-verdict", browser.screenshot(os.path.join(out, "03-verdict.png")), expect_color=(0x0B, 0x6B, 0x2E), box=browser.verdict_box())

        # The raw JSON, a key press away: Tab to the summary, Enter opens it.
        check(not browser.evaluate("document.getElementById('raw').open"), "the raw JSON starts closed")
        for _ in range(8):
            browser.key("Tab")
            if browser.evaluate("document.activeElement.tagName") == "SUMMARY":
                break
        check(browser.evaluate("document.activeElement.tagName") == "SUMMARY", "Tab reaches the raw JSON toggle")
        browser.key("Enter")
        check(browser.wait_for("document.getElementById('raw').open", 5), "Enter opens the raw JSON")
        raw = json.loads(browser.evaluate("document.getElementById('raw-json').textContent"))
        check(raw.get("state") == "done" and raw["result"]["status"] == "valid", "the raw JSON is the job, done and valid")
        check_screenshot("04-raw-json", browser.screenshot(os.path.join(out, "04-raw-json.png")))

        # A wrong key: the read fails, in red, with the daemon's reason.
        check(browser.tab_to("again"), "Tab reaches New read")
        browser.key("Enter")
        check(browser.wait_for("document.getElementById('result-section').hidden && document.activeElement.id === 'docno'", 5),
              "New read clears the verdict and puts the focus on the document number")
        type_mrz_key(browser, "L898902C3", "740812", "120416")
        browser.key("Enter")
        check(browser.wait_for("!document.getElementById('result-section').hidden", 90), "the wrong-key read finishes")
        check(browser.evaluate("document.getElementById('verdict').className") == "verdict failed", "a wrong key is a failed (red) verdict")
        detail = browser.evaluate("document.getElementById('verdict-detail').textContent")
        check("accessDenied" in detail, "the failure says why: " + detail)
        check(browser.evaluate("document.getElementById('face-figure').hidden"), "no face after a failed read")
        check_screenshot("05-failed", browser.screenshot(os.path.join(out, "05-failed.png")), expect_color=(0xA4, 0x00, 0x1C), box=browser.verdict_box())

        # The CAN, on the second reader (the PACE-only ID card), chosen with the keyboard.
        check(browser.tab_to("again"), "Tab reaches New read again")
        browser.key("Enter")
        check(browser.wait_for("document.activeElement.id === 'docno'", 5), "focus back on the document number")
        browser.key("Tab", shift=True)
        check(browser.evaluate("document.activeElement.id") == "method-mrz", "Shift-Tab reaches the access key choice")
        browser.key("ArrowRight")
        check(browser.evaluate("document.getElementById('method-can').checked && document.getElementById('mrz-fields').hidden"),
              "the arrow key chooses CAN; the MRZ fields hide")
        browser.key("Tab", shift=True)
        check(browser.evaluate("document.activeElement.id") == "reader", "Shift-Tab reaches the reader choice")
        browser.key("ArrowDown")
        browser.key("ArrowDown")
        check(browser.evaluate("document.getElementById('reader').value") == "Virtual Reader 1", "arrow keys choose Virtual Reader 1")
        browser.key("Tab")
        browser.key("Tab")
        check(browser.evaluate("document.activeElement.id") == "can", "Tab reaches the CAN field")
        browser.type("12345")
        browser.key("Enter")
        check(browser.wait_for("document.getElementById('can-check').textContent.includes('six digits')", 5) and
              browser.evaluate("document.getElementById('result-section').hidden"), "a five-digit CAN is refused before any read")
        browser.type("6")
        browser.key("Enter")
        check(browser.wait_for("!document.getElementById('result-section').hidden", 90), "the CAN read finishes")
        can_job = json.loads(browser.evaluate("document.getElementById('raw-json').textContent"))
        check(can_job.get("reader") == "Virtual Reader 1" and (can_job.get("result") or {}).get("access", {}).get("password") == "CAN",
              f"read on Virtual Reader 1 with PACE and the CAN ({can_job.get('reader')})")
        check(browser.evaluate("document.getElementById('verdict').className") == "verdict valid", "the ID card reads valid")
        check(browser.wait_for("(() => { const i = document.getElementById('face'); return i.complete && i.naturalWidth > 0; })()", 30),
              "the ID card's face image loaded")
        check_screenshot("06-can", browser.screenshot(os.path.join(out, "06-can.png")), expect_color=(0x0B, 0x6B, 0x2E), box=browser.verdict_box())
        print(json.dumps({"verdictSeconds": round(verdict_seconds, 2), "totalSeconds": round(time.monotonic() - started, 2)}), flush=True)
    finally:
        browser.close()
        shutil.rmtree(profile, ignore_errors=True)
    attack(url)
    if failures:
        print(f"{len(failures)} failure(s)", flush=True)
        sys.exit(1)
    print("all console checks passed", flush=True)


if __name__ == "__main__":
    main()
