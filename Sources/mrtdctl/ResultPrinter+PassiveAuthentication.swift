import MRTDCore

extension ResultPrinter {
    /// `passed`, or `failed (dataGroupHashMismatch: hash mismatch: DG2)`, with the warnings.
    static func describe(_ c: ReadResult.PassiveAuthenticationCheck) -> String {
        var text = c.result.rawValue
        if let reason = c.reason { text += " (\(reason)\(c.detail.map { ": \($0)" } ?? ""))" }
        if let scheme = c.signatureAlgorithm { text += ", \(scheme)" }
        if let csca = c.csca { text += ", CSCA \(csca.subject)" }
        if let warnings = c.warnings, !warnings.isEmpty { text += " [\(warnings.joined(separator: ", "))]" }
        return text
    }
}
