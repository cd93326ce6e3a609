/// The console's page, style and script: no build step, no external assets (docs/console.md).
/// Served under the token path; the script only uses relative URLs (`api/...`).
enum ConsoleAssets {
    static let html = ##"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>mrtdd operator console</title>
        <link rel="stylesheet" href="console.css">
        <script src="console.js" defer></script>
        </head>
        <body>
        <header><h1>mrtdd operator console</h1><p id="connection" role="status">connecting…</p></header>
        <main>
        <section aria-labelledby="readers-title" id="readers-section">
          <h2 id="readers-title">Readers</h2>
          <ul id="readers" aria-live="polite"><li>loading…</li></ul>
        </section>
        <section aria-labelledby="read-title" id="read-section">
          <h2 id="read-title">Read a document</h2>
          <form id="read-form" novalidate>
            <label for="reader">Reader</label>
            <select id="reader" name="reader"><option value="">any reader with a card</option></select>
            <fieldset id="method">
              <legend>Access key</legend>
              <label><input type="radio" name="method" value="mrz" id="method-mrz" checked> MRZ (document number, dates)</label>
              <label><input type="radio" name="method" value="can" id="method-can"> CAN (card access number)</label>
            </fieldset>
            <div id="mrz-fields">
              <div class="field">
                <label for="docno">Document number</label>
                <input id="docno" name="docno" autocomplete="off" spellcheck="false" maxlength="9" aria-describedby="docno-check">
                <label for="docno-cd" class="cd">Check digit</label>
                <input id="docno-cd" class="cd" name="docno-cd" autocomplete="off" inputmode="numeric" maxlength="1" aria-describedby="docno-check">
                <p id="docno-check" class="check" aria-live="polite"></p>
              </div>
              <div class="field">
                <label for="dob">Date of birth (YYMMDD)</label>
                <input id="dob" name="dob" autocomplete="off" inputmode="numeric" maxlength="6" aria-describedby="dob-check">
                <label for="dob-cd" class="cd">Check digit</label>
                <input id="dob-cd" class="cd" name="dob-cd" autocomplete="off" inputmode="numeric" maxlength="1" aria-describedby="dob-check">
                <p id="dob-check" class="check" aria-live="polite"></p>
              </div>
              <div class="field">
                <label for="doe">Date of expiry (YYMMDD)</label>
                <input id="doe" name="doe" autocomplete="off" inputmode="numeric" maxlength="6" aria-describedby="doe-check">
                <label for="doe-cd" class="cd">Check digit</label>
                <input id="doe-cd" class="cd" name="doe-cd" autocomplete="off" inputmode="numeric" maxlength="1" aria-describedby="doe-check">
                <p id="doe-check" class="check" aria-live="polite"></p>
              </div>
            </div>
            <div id="can-fields" hidden>
              <div class="field">
                <label for="can">CAN (6 digits)</label>
                <input id="can" name="can" autocomplete="off" inputmode="numeric" maxlength="6" aria-describedby="can-check">
                <p id="can-check" class="check" aria-live="polite"></p>
              </div>
            </div>
            <p id="form-error" class="error" role="alert"></p>
            <button type="submit" id="submit">Read</button>
          </form>
        </section>
        <section aria-labelledby="progress-title" id="progress-section" hidden>
          <h2 id="progress-title">Progress</h2>
          <progress id="progress" max="100" value="0" aria-labelledby="progress-title"></progress>
          <p id="phase" role="status"></p>
          <button type="button" id="cancel">Cancel read</button>
        </section>
        <section aria-labelledby="verdict" id="result-section" hidden>
          <h2 id="verdict" class="verdict" tabindex="-1"></h2>
          <p id="verdict-detail"></p>
          <p id="downgrade" class="result-failed" role="note" hidden></p>
          <div id="result-body">
            <figure id="face-figure" hidden><img id="face" alt="Face image read from the chip"><figcaption>Face (from DG2)</figcaption></figure>
            <dl id="holder"></dl>
          </div>
          <h3>Checks</h3>
          <ul id="checks"></ul>
          <details id="raw"><summary>Raw JSON</summary><pre id="raw-json"></pre></details>
          <button type="button" id="again">New read</button>
        </section>
        </main>
        </body>
        </html>
        """##

    static let style = ##"""
        :root { --fg: #1a1a1a; --bg: #fafafa; --muted: #4a4a4a; --ok: #0b6b2e; --warn: #8a5a00; --bad: #a4001c; --focus: #0047b3; }
        * { box-sizing: border-box; }
        body { margin: 0; font: 16px/1.45 system-ui, "DejaVu Sans", sans-serif; color: var(--fg); background: var(--bg); }
        header { display: flex; justify-content: space-between; align-items: baseline; padding: .6rem 1.2rem; background: #12233d; color: #fff; }
        header h1 { font-size: 1.2rem; margin: 0; }
        header p { margin: 0; }
        main { display: grid; grid-template-columns: minmax(16rem, 1fr) minmax(0, 2fr); gap: 1rem; padding: 1rem 1.2rem; }
        section { min-width: 0; background: #fff; border: 1px solid #c8c8c8; border-radius: 6px; padding: .8rem 1rem; }
        #readers-section { grid-row: span 3; }
        h2 { font-size: 1.1rem; margin: 0 0 .6rem; }
        ul { padding-left: 1.1rem; margin: 0; }
        #readers li { margin-bottom: .4rem; }
        .state { color: var(--muted); font-size: .9rem; }
        .card { color: var(--ok); font-weight: 600; }
        label { font-weight: 600; display: block; margin-top: .4rem; }
        fieldset { border: 1px solid #c8c8c8; margin: .6rem 0; }
        fieldset label { font-weight: normal; display: inline-block; margin-right: 1rem; }
        .field { display: grid; grid-template-columns: 1fr 7rem; column-gap: .6rem; }
        .field label { grid-row: 1; }
        .field input { grid-row: 2; font: 1.1rem monospace; padding: .3rem; text-transform: uppercase; border: 1px solid #767676; }
        .field .check { grid-column: 1 / 3; grid-row: 3; margin: .2rem 0 0; min-height: 1.4em; font-size: .92rem; }
        .field input[aria-invalid="true"] { border: 2px solid var(--bad); }
        select { font-size: 1rem; padding: .2rem; }
        .good { color: var(--ok); } .bad { color: var(--bad); }
        .error { color: var(--bad); font-weight: 600; min-height: 1.4em; }
        button { font-size: 1rem; padding: .45rem 1.2rem; border-radius: 4px; border: 1px solid #12233d; background: #12233d; color: #fff; cursor: pointer; }
        button:disabled { background: #767676; border-color: #767676; }
        :focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
        progress { width: 100%; height: 1.2rem; }
        .verdict { padding: .7rem 1rem; border-radius: 4px; font-size: 1.4rem; color: #fff; margin: 0 0 .5rem; }
        .verdict.valid { background: var(--ok); }
        .verdict.unverified { background: #ffc845; color: #1a1a1a; }
        .verdict.invalid, .verdict.failed { background: var(--bad); }
        #result-body { display: flex; gap: 1.2rem; align-items: flex-start; flex-wrap: wrap; }
        figure { margin: 0; }
        #face { width: 180px; height: auto; border: 1px solid #767676; display: block; }
        figcaption { font-size: .85rem; color: var(--muted); }
        dl { display: grid; grid-template-columns: auto 1fr; gap: .2rem .8rem; margin: 0; }
        dt { font-weight: 600; } dd { margin: 0; font-family: monospace; font-size: 1.05rem; }
        #checks li { margin-bottom: .35rem; }
        .result-passed { color: var(--ok); font-weight: 600; } .result-failed { color: var(--bad); font-weight: 600; }
        .result-other { color: var(--warn); font-weight: 600; }
        pre { max-height: 24rem; overflow: auto; white-space: pre-wrap; overflow-wrap: anywhere; background: #f0f0f0; padding: .6rem; font-size: .85rem; }
        details { margin: .8rem 0; } summary { cursor: pointer; font-weight: 600; }
        @media (max-width: 50rem) { main { grid-template-columns: 1fr; } #readers-section { grid-row: auto; } }
        """##

    static let script = ##"""
        "use strict";
        // Doc 9303-3 §4.9: weights 7, 3, 1; digits their value, A-Z 10-35, '<' 0.
        function charValue(c) {
          if (c >= "0" && c <= "9") return c.charCodeAt(0) - 48;
          if (c >= "A" && c <= "Z") return c.charCodeAt(0) - 55;
          if (c === "<") return 0;
          return -1;
        }
        function checkDigit(text) {
          const w = [7, 3, 1]; let sum = 0;
          for (let i = 0; i < text.length; i++) {
            const v = charValue(text[i]); if (v < 0) return null;
            sum += v * w[i % 3];
          }
          return String(sum % 10);
        }
        function validDate(s) {
          if (!/^[0-9]{6}$/.test(s)) return false;
          const m = +s.slice(2, 4), d = +s.slice(4, 6);
          if (m < 1 || m > 12 || d < 1) return false;
          return d <= [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1];
        }
        const $ = (id) => document.getElementById(id);
        const fields = {
          docno: { check: (v) => /^[A-Z0-9<]{1,9}$/.test(v) ? null : "letters and digits, up to 9 (pad with <)" },
          dob: { check: (v) => validDate(v) ? null : "six digits YYMMDD, a real date" },
          doe: { check: (v) => validDate(v) ? null : "six digits YYMMDD, a real date" },
        };
        // Validates one MRZ field and its check digit as typed; returns true when usable.
        function validateField(name) {
          const input = $(name), cdInput = $(name + "-cd"), out = $(name + "-check");
          input.value = input.value.toUpperCase().replace(/\s/g, "");
          const value = input.value, given = cdInput.value.trim();
          if (value === "") { out.textContent = ""; out.className = "check"; input.removeAttribute("aria-invalid"); cdInput.removeAttribute("aria-invalid"); return false; }
          const problem = fields[name].check(value);
          if (problem) {
            out.textContent = "✗ " + problem; out.className = "check bad";
            input.setAttribute("aria-invalid", "true"); return false;
          }
          input.removeAttribute("aria-invalid");
          const padded = name === "docno" ? value.padEnd(9, "<") : value;
          const cd = checkDigit(padded);
          if (given === "") {
            out.textContent = "check digit " + cd; out.className = "check";
            cdInput.removeAttribute("aria-invalid"); return true;
          }
          if (given !== cd) {
            out.textContent = "✗ check digit " + given + " does not match (computed " + cd + "): a typing error?";
            out.className = "check bad"; cdInput.setAttribute("aria-invalid", "true"); return false;
          }
          out.textContent = "✓ check digit " + cd + " matches"; out.className = "check good";
          cdInput.removeAttribute("aria-invalid"); return true;
        }
        function validateCAN() {
          const input = $("can"), out = $("can-check"), v = input.value.trim();
          if (v === "") { out.textContent = ""; input.removeAttribute("aria-invalid"); return false; }
          if (!/^[0-9]{6}$/.test(v)) { out.textContent = "✗ six digits"; out.className = "check bad"; input.setAttribute("aria-invalid", "true"); return false; }
          out.textContent = "✓"; out.className = "check good"; input.removeAttribute("aria-invalid"); return true;
        }
        function method() { return $("method-can").checked ? "can" : "mrz"; }
        function showMethod() {
          $("mrz-fields").hidden = method() !== "mrz";
          $("can-fields").hidden = method() !== "can";
        }

        // Readers, live: GET api/readers at start and after every reader or card event.
        async function loadReaders() {
          try {
            const answer = await fetch("api/readers", { cache: "no-store" });
            const body = await answer.json();
            if (!answer.ok) throw new Error(body.message || answer.status);
            renderReaders(body.readers || []);
            $("connection").textContent = "connected to mrtdd";
          } catch (e) {
            $("connection").textContent = "mrtdd unreachable: " + e.message;
          }
        }
        function renderReaders(readers) {
          const list = $("readers"); list.replaceChildren();
          if (readers.length === 0) { const li = document.createElement("li"); li.textContent = "no readers"; list.append(li); }
          const select = $("reader"), chosen = select.value;
          select.replaceChildren(new Option("any reader with a card", ""));
          for (const r of readers) {
            const li = document.createElement("li");
            const name = document.createElement("strong"); name.textContent = r.name;
            const card = document.createElement("span");
            card.className = r.cardPresent ? "card" : "state";
            card.textContent = r.cardPresent ? " card present" : " no card";
            const state = document.createElement("span"); state.className = "state";
            state.textContent = " (" + r.backend + (r.busy ? ", busy" : "") + ")";
            li.append(name, card, state); list.append(li);
            select.append(new Option(r.name, r.name));
          }
          select.value = chosen;
          if (select.value !== chosen) select.value = "";
        }
        let current = null;
        function connectEvents() {
          const source = new EventSource("api/events");
          for (const type of ["reader.added", "reader.removed", "card.inserted", "card.removed"]) {
            source.addEventListener(type, loadReaders);
          }
          // A scanner (docs/kiosk.md) started a read of this user's: follow it, no typing.
          source.addEventListener("mrz.captured", (e) => {
            const c = JSON.parse(e.data);
            if (!c.id) return;
            current = c.id;
            $("form-error").textContent = "";
            $("progress-section").hidden = false; $("result-section").hidden = true;
            $("progress").value = 0;
            const fixed = (c.corrections || []).map((x) => x.field + " " + x.pair).join(", ");
            $("phase").textContent = "MRZ scanned (" + c.format + (fixed ? "; corrected " + fixed : "") + "): place the document…";
            $("submit").disabled = true;
            follow(c.id);
          });
          source.addEventListener("mrz.rejected", (e) => {
            const r = JSON.parse(e.data);
            $("form-error").textContent = "The scanned MRZ starts no read: " + r.message + ". Scan again.";
          });
          source.addEventListener("read.progress", (e) => {
            const p = JSON.parse(e.data);
            if (current && p.id === current) showProgress(p);
          });
          source.onerror = () => { $("connection").textContent = "event stream interrupted; retrying…"; };
          source.onopen = () => loadReaders();
        }
        function showProgress(p) {
          if (!p) return;
          $("progress").value = p.percent || 0;
          $("phase").textContent = (p.phase || "") + (p.file ? " " + p.file : "") + " — " + (p.percent || 0) + "%";
        }

        // A read: POST api/reads, then follow the job until it finishes.
        function request() {
          const body = { access: {} };
          if ($("reader").value) body.reader = $("reader").value;
          if (method() === "can") body.access.can = $("can").value.trim();
          else body.access.mrzKey = { documentNumber: $("docno").value, dateOfBirth: $("dob").value, dateOfExpiry: $("doe").value };
          return body;
        }
        async function submitRead(event) {
          event.preventDefault();
          $("form-error").textContent = "";
          let firstBad = null;
          if (method() === "mrz") {
            for (const name of ["docno", "dob", "doe"]) if (!validateField(name) && !firstBad) firstBad = $(name).getAttribute("aria-invalid") || $(name).value === "" ? $(name) : $(name + "-cd");
          } else if (!validateCAN()) firstBad = $("can");
          if (firstBad) { $("form-error").textContent = "Please correct the highlighted field."; firstBad.focus(); return; }
          $("submit").disabled = true;
          try {
            const answer = await fetch("api/reads", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(request()) });
            const job = await answer.json();
            if (!answer.ok) throw new Error(job.message || ("HTTP " + answer.status));
            current = job.id;
            $("progress-section").hidden = false; $("result-section").hidden = true;
            $("progress").value = 0; $("phase").textContent = "waiting for the document…";
            $("cancel").focus();
            follow(job.id);
          } catch (e) {
            $("form-error").textContent = "The read could not start: " + e.message;
            $("submit").disabled = false;
          }
        }
        async function follow(id) {
          while (current === id) {
            let job;
            try {
              const answer = await fetch("api/reads/" + encodeURIComponent(id), { cache: "no-store" });
              job = await answer.json();
              if (!answer.ok) throw new Error(job.message || answer.status);
            } catch (e) { $("phase").textContent = "lost the job: " + e.message; break; }
            if (job.progress) showProgress(job.progress);
            if (["done", "failed", "cancelled"].includes(job.state)) { showResult(job); return; }
            await new Promise((r) => setTimeout(r, 300));
          }
          $("submit").disabled = false;
        }

        const checkWords = {
          passiveAuthentication: "Passive authentication: the issuing state signed the chip's data, and the data read matches its signed hashes",
          activeAuthentication: "Active authentication: the chip proved it holds the private key of DG15 (not a clone)",
          chipAuthentication: "Chip authentication: the chip proved it holds the private key of DG14 (not a clone), and the session was re-keyed",
          mrzMatch: "MRZ match: the MRZ read from the chip (DG1) equals the MRZ of the data page (scanned or given whole)",
        };
        const resultWords = {
          passed: "passed", failed: "FAILED", notPerformed: "not performed", notChecked: "not checked",
          skipped: "skipped", unavailable: "unavailable",
        };
        const reasonWords = {
          noDG14: "the document has no DG14 (it does not support this check)",
          noDG15: "the document has no DG15 (it does not support this check)",
          activeAuthenticationRequired: "the signed data says the chip has an active authentication key, yet the check did not run",
          noTrustStore: "no trusted CSCA certificates are configured",
          noTrustAnchor: "the document signer's country is not in the trust store",
          revocationNotChecked: "revocation was not checked (no CRL)",
          testTrustAnchor: "trusted through the TEST-ONLY CSCA (simulation)",
        };
        const words = (map, key) => map[key] || String(key).replace(/([A-Z])/g, " $1").toLowerCase();
        const capitalized = (text) => text.charAt(0).toUpperCase() + text.slice(1);
        function showResult(job) {
          current = null;
          $("progress-section").hidden = true; $("result-section").hidden = false;
          $("submit").disabled = false;
          const result = job.result, status = job.state === "done" && result ? result.status : "failed";
          const verdict = $("verdict");
          verdict.className = "verdict " + status;
          verdict.textContent = { valid: "✓ VALID", unverified: "? UNVERIFIED", invalid: "✗ INVALID", failed: "✗ READ FAILED" }[status] || status;
          const summary = {
            valid: "The chip was read and its data verified against a trusted issuing state.",
            unverified: "The chip was read, but it could not be fully verified (see the checks).",
            invalid: "The chip was read, but a check failed: do not trust this document.",
          }[status] || (job.error ? job.error.message + " (" + job.error.error + ")" : "The read " + job.state + ".");
          // What the status covers (the daemon's statusDetail): never a bare "valid" beside a failed check.
          $("verdict-detail").textContent = summary + (result && result.statusDetail ? " " + capitalized(result.statusDetail) + "." : "");
          // A PACE to BAC downgrade is named at the top, not only in the raw JSON.
          const fallback = result && result.access && result.access.fallback;
          $("downgrade").hidden = !fallback;
          $("downgrade").textContent = fallback
            ? "Downgrade: " + fallback.from + " failed (" + fallback.reason + "); the chip was read with " + fallback.to + ", the weaker protocol." : "";
          const holder = $("holder"); holder.replaceChildren();
          const d = result && result.document;
          if (d) {
            const rows = [["Name", [d.primaryIdentifier, d.secondaryIdentifier].filter(Boolean).join(", ")], ["Document", d.documentCode + " " + d.documentNumber],
              ["Issuing state", d.issuingState], ["Nationality", d.nationality], ["Date of birth", d.dateOfBirth || d.dateOfBirthRaw],
              ["Sex", d.sex], ["Date of expiry", d.dateOfExpiry || d.dateOfExpiryRaw]];
            for (const [k, v] of rows) {
              const dt = document.createElement("dt"); dt.textContent = k;
              const dd = document.createElement("dd"); dd.textContent = v || "—";
              if (k === "Name") dd.id = "holder-name";
              holder.append(dt, dd);
            }
          }
          const figure = $("face-figure"), face = $("face");
          if (result && result.face) { face.src = "api/reads/" + encodeURIComponent(job.id) + "/face"; figure.hidden = false; }
          else { face.removeAttribute("src"); figure.hidden = true; }
          const checks = $("checks"); checks.replaceChildren();
          for (const [name, check] of Object.entries((result && result.checks) || {})) {
            if (!check || typeof check !== "object") continue;
            const li = document.createElement("li");
            const label = document.createElement("span"); label.textContent = capitalized(words(checkWords, name)) + ": ";
            const r = document.createElement("span");
            r.className = check.result === "passed" ? "result-passed" : check.result === "failed" ? "result-failed" : "result-other";
            r.textContent = words(resultWords, check.result);
            li.append(label, r);
            const notes = [];
            if (check.reason) notes.push(words(reasonWords, check.reason));
            for (const w of check.warnings || []) notes.push(words(reasonWords, w));
            if (notes.length) li.append(" — " + notes.join("; "));
            checks.append(li);
          }
          if (result && result.document && result.document.checkDigitsValid === false) {
            const li = document.createElement("li"); li.className = "result-failed";
            li.textContent = "MRZ check digits in DG1 do not match: " + (result.document.invalidCheckDigits || []).join(", ");
            checks.append(li);
          }
          $("raw-json").textContent = JSON.stringify(job, null, 2);
          verdict.focus();
        }
        function reset() {
          $("result-section").hidden = true;
          for (const id of ["docno", "docno-cd", "dob", "dob-cd", "doe", "doe-cd", "can"]) $(id).value = "";
          for (const id of ["docno", "dob", "doe"]) validateField(id);
          validateCAN();
          (method() === "can" ? $("can") : $("docno")).focus();
        }
        async function cancelRead() {
          if (!current) return;
          try { await fetch("api/reads/" + encodeURIComponent(current), { method: "DELETE" }); } catch (e) { /* the poll reports */ }
        }
        document.addEventListener("DOMContentLoaded", () => {
          for (const name of ["docno", "dob", "doe"]) {
            $(name).addEventListener("input", () => validateField(name));
            $(name + "-cd").addEventListener("input", () => validateField(name));
          }
          $("can").addEventListener("input", validateCAN);
          for (const r of document.querySelectorAll("input[name=method]")) r.addEventListener("change", showMethod);
          $("read-form").addEventListener("submit", submitRead);
          $("again").addEventListener("click", reset);
          $("cancel").addEventListener("click", cancelRead);
          showMethod();
          loadReaders();
          connectEvents();
          $("docno").focus();
        });
        """##
}
