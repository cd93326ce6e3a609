import FoundationEssentials
import MRTDCore
import MRTDPlatform

/// Renders the result model for people (`summary`) and for programs (`json`).
enum ResultPrinter {
    static func json(_ result: ReadResult) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(result), as: UTF8.self)
    }

    static func summary(_ r: ReadResult) -> String {
        var lines: [(String, String)] = []
        if let e = r.error {
            lines.append(("Error", "\(e.message) [\(e.code)]"))
        }
        if let d = r.document {
            lines.append(("Document", "\(d.documentCode) \(d.issuingState) \(d.documentNumber) (\(d.mrzFormat))"))
            let name = d.secondaryIdentifier.isEmpty ? d.primaryIdentifier : "\(d.primaryIdentifier), \(d.secondaryIdentifier)"
            lines.append(("Holder", name))
            lines.append(("Nationality", "\(d.nationality)   Sex: \(d.sex)"))
            lines.append(("Born", "\(d.dateOfBirth ?? "?") (\(d.dateOfBirthRaw))"))
            lines.append(("Expires", "\(d.dateOfExpiry ?? "?") (\(d.dateOfExpiryRaw))"))
            if !d.checkDigitsValid {
                lines.append(("MRZ", "WRONG CHECK DIGIT in \(d.invalidCheckDigits.joined(separator: ", "))"))
            }
        }
        if let a = r.access {
            var how = "\(a.protocol) with \(a.password), \(a.cipher) secure messaging"
            if let mapping = a.mapping, let agreement = a.keyAgreement {
                how += ", \(agreement) \(mapping) on \(a.domainParameters ?? "?")"
                if let id = a.parameterId { how += " (parameter ID \(id))" }
            }
            lines.append(("Access", how))
            if let f = a.fallback {
                lines.append(("Fallback", "\(f.from) -> \(f.to): \(f.reason)"))
            }
        }
        if let apps = r.applications {
            lines.append(("Applications", "LDS1 \(apps.lds1 ? "yes" : "no"), LDS2 \(apps.lds2 ? "yes" : "no")"))
        }
        if let f = r.face {
            let size = f.width.flatMap { w in f.height.map { "\(w)x\($0)" } } ?? "size unknown"
            lines.append(("Face", "\(f.mimeType) \(size), \(f.size) bytes (\(f.encoding ?? "?"))"))
        }
        lines += ldsLines(r)
        if !r.dataGroupsRead.isEmpty {
            lines.append(("Files", r.dataGroupsRead.joined(separator: " ")))
        }
        for s in r.dataGroupsSkipped {
            lines.append(("Skipped", "\(s.file): \(s.reason)"))
        }
        lines.append(("PA", describe(r.checks.passiveAuthentication)))
        lines.append(("CA", describe(r.checks.chipAuthentication)))
        lines.append(("AA", describe(r.checks.activeAuthentication)))
        if let challenge = r.checks.activeAuthentication.challenge {
            lines.append(("AA challenge", challenge + (r.checks.activeAuthentication.challengeSource.map { " (\($0))" } ?? "")))
        }
        lines += inspectionLines(r.checks)
        if let ta = r.checks.terminalAuthentication {
            var text = ta.result.rawValue + (ta.reason.map { " (\($0))" } ?? "")
            if let chain = ta.chain { text += ": " + chain.joined(separator: " > ") }
            if let granted = ta.grantedDataGroups { text += ", grants " + granted.map { "DG\($0)" }.joined(separator: " ") }
            if let detail = ta.detail { text += "; \(detail)" }
            lines.append(("TA", text))
        }
        let t = r.transport
        lines.append(("Transport", "\(t.apdus) APDUs (\(t.readBinaryCommands) READ BINARY), \(t.bytesSent) bytes sent, "
            + "\(t.bytesReceived) received, \(t.extendedLength ? "extended length" : "short APDUs"), "
            + "largest read \(t.maxReadLength) bytes"))
        for recovery in t.recoveries {
            let place = recovery.file.map { " \($0)" + (recovery.offset.map { " @\($0)" } ?? "") } ?? ""
            lines.append(("Recovery", "\(recovery.kind) at exchange \(recovery.exchange)\(place): \(recovery.detail)"))
        }
        for w in r.warnings {
            lines.append(("Warning", w))
        }
        // The status with what it covers, so that `valid` never stands unexplained beside a failed line.
        let covers = r.statusDetail.map { ": \($0)" } ?? ""
        lines.append(("Status", "\(r.status.rawValue)\(covers) (\(r.durationMs.fixed(decimals: 1)) ms)"))
        let width = lines.map(\.0.count).max() ?? 0
        // Every value may carry strings from input (a chip, a bundle, a saved result): escaped, so
        // that no control sequence in them can paint another status on the terminal.
        return lines.map { $0.0 + String(repeating: " ", count: max(0, width + 2 - $0.0.count)) + TerminalText.escaped($0.1) }
            .joined(separator: "\n")
    }

    private static func describe(_ c: ReadResult.Check) -> String {
        let verdict = c.reason.map { "\(c.result.rawValue) (\($0))" } ?? c.result.rawValue
        let how = [c.protocol, c.keyAgreement, c.algorithm].compactMap { $0 }
        return how.isEmpty ? verdict : verdict + ": " + how.joined(separator: ", ")
    }
}
