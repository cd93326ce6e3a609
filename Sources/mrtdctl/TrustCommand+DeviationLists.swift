import MRTDVerification

/// `mrtdctl trust list`: one line per deviation list (Doc 9303-12 §10) and its signature verdict.
func printDeviationLists(_ report: TrustStoreReport) {
    for list in report.deviationLists ?? [] {
        let verdict = list.signature == "verified" ? "signature verified" : "REJECTED (\(list.signature): \(list.detail ?? ""))"
        print("Deviation list \(list.path): \(verdict); \(list.deviations) deviation\(list.deviations == 1 ? "" : "s")")
        if let signer = list.signer { print("  signer \(signer)\(list.signerCSCA.map { " <- \($0)" } ?? "")") }
    }
}
