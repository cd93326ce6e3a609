/// The outcome of EAC Terminal Authentication (BSI TR-03110-1 §4.4): `checks.terminalAuthentication`.
///
/// `passed` only when the chip accepted the certificate chain and the terminal's signature;
/// `failed` with a stable reason code (`terminalTrustPointUnknown`, `terminalCertificateExpired`, …);
/// `notPerformed` when there was no Chip Authentication to bind it to. Absent unless terminal
/// credentials were configured and DG3 or DG4 was asked for.
public struct TerminalAuthenticationCheck: Sendable, Equatable, Codable {
    /// `passed`, `failed` or `notPerformed`.
    public var result: CheckResult
    /// A stable code (failures and `notPerformed`).
    public var reason: String?
    /// A readable explanation (certificate names and status words; never key material).
    public var detail: String?
    /// The chain used, trust point first: the chip's CVCA reference, then the CHR of each
    /// certificate presented (link, DV, IS).
    public var chain: [String]?
    /// The terminal's signature scheme (`ECDSA-plain-SHA256`, `RSA-PSS-SHA256-salt32`).
    public var algorithm: String?
    /// Where the terminal key is: `file` or `pkcs11`.
    public var keySource: String?
    /// The EAC-protected data groups the chain's access rights grant, of those asked for.
    public var grantedDataGroups: [Int]?

    public init(result: CheckResult, reason: String? = nil, detail: String? = nil, chain: [String]? = nil,
                algorithm: String? = nil, keySource: String? = nil, grantedDataGroups: [Int]? = nil) {
        self.result = result
        self.reason = reason
        self.detail = detail
        self.chain = chain
        self.algorithm = algorithm
        self.keySource = keySource
        self.grantedDataGroups = grantedDataGroups
    }

    /// `notPerformed`: the chip lists no EAC-protected data group (DG3, DG4) of those asked for, so
    /// it has nothing Terminal Authentication would open (TR-03135-1 Table 5.21: not supported).
    public static let noEACDataGroupListed = "noEACDataGroupRequested"

    public static func notPerformed(_ reason: String, detail: String? = nil) -> Self {
        .init(result: .notPerformed, reason: reason, detail: detail)
    }
}
