import MRTDCore

extension ResultPrinter {
    /// The TR-03135 checks and matching deviations, one line each (absent checks are left out).
    static func inspectionLines(_ checks: ReadResult.Checks) -> [(String, String)] {
        var lines: [(String, String)] = []
        let named: [(String, ReadResult.Check?)] = [
            ("Country", checks.issuingCountry), ("Expiry", checks.documentExpiry), ("MRZ key", checks.accessKeyMatch),
            ("Structure", checks.dataGroupStructure), ("Revocation", checks.revocation),
        ]
        for (label, check) in named {
            guard let check else { continue }
            var text = check.result.rawValue
            if let reason = check.reason { text += " [\(reason)]" }
            if let detail = check.detail { text += ": \(detail)" }
            lines.append((label, text))
        }
        for deviation in checks.deviations ?? [] {
            let what = deviation.affects.map { " (\($0))" } ?? ""
            lines.append(("Deviation", "\(deviation.type)\(what) \(deviation.effect): \(deviation.explanation)"))
        }
        return lines
    }
}
