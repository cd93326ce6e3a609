#!/usr/bin/env python3
"""Drives `mrtdctl console` in headless Chromium against `mrtdd --simulate --sim-auth-fault
bad-aa-signature`: the specimen passport's chip answers Active Authentication with a wrong
signature (a clone without the AA key). The verdict must be invalid, painted red, and say that
Active Authentication failed. Reuses console_e2e.py's browser driver.

Usage: console_invalid.py URL OUTDIR [CHROMIUM]. Exit 0 when every assertion holds."""
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import console_e2e  # noqa: E402
from console_e2e import check, check_screenshot, open_console, type_mrz_key  # noqa: E402


def main():
    url, out, profile, browser = open_console(sys.argv)
    try:
        check(browser.wait_for("document.getElementById('connection').textContent === 'connected to mrtdd'", 30), "connected to mrtdd")
        # The specimen's MRZ key, check digits left empty (Tab past them).
        type_mrz_key(browser, "L898902C3", "740812", "120415")
        browser.key("Enter")
        check(browser.wait_for("!document.getElementById('result-section').hidden", 90), "the read finishes")
        verdict = browser.evaluate("document.getElementById('verdict').className")
        check(verdict == "verdict invalid", f"a chip whose AA signature is wrong is an invalid verdict (got {verdict})")
        detail = browser.evaluate("document.getElementById('verdict-detail').textContent")
        check("activeAuthentication" in detail, "the verdict says what failed: " + detail)
        items = browser.evaluate("[...document.querySelectorAll('#checks li')].map(li => li.textContent)")
        check(any(t.startswith("Active authentication") and "failed" in t.lower() for t in items),
              "the checks list Active Authentication failed: " + " | ".join(items))
        job = json.loads(browser.evaluate("document.getElementById('raw-json').textContent"))
        result = job.get("result") or {}
        check(result.get("status") == "invalid" and result["checks"]["activeAuthentication"]["result"] == "failed",
              "the job's result is invalid with AA failed")
        check_screenshot("07-aa-invalid", browser.screenshot(os.path.join(out, "07-aa-invalid.png")),
                         expect_color=(0xA4, 0x00, 0x1C), box=browser.verdict_box())
    finally:
        browser.close()
        shutil.rmtree(profile, ignore_errors=True)
    if console_e2e.failures:
        print(f"{len(console_e2e.failures)} failure(s)", flush=True)
        sys.exit(1)
    print("all console checks passed", flush=True)


if __name__ == "__main__":
    main()
