public import MRTDCore
import MRTDCrypto
public import MRTDProtocol

/// The default configuration sets of BSI TR-03105 Part 5.1 (chapter 4): the virtual chip as the
/// plan's lower tester. A conformance case starts from one of these and modifies it (a file, a key,
/// a status word, a certificate). TEST ONLY material throughout (the run's simulation PKI).
public enum ConformanceProfile: String, CaseIterable, Sendable {
    /// BAC, no Chip, Terminal or Active Authentication.
    case bac = "CFG.DFLT.BAC"
    /// BAC, Chip Authentication (DG14) and Terminal Authentication (EF.CVCA, DG3/DG4 behind EAC).
    case eac = "CFG.DFLT.EAC"
    /// CFG.DFLT.EAC with Active Authentication (DG15).
    case eacAA = "CFG.DFLT.EACAA"
    /// PACE (EF.CardAccess, GM, brainpoolP256r1, AES-128) and BAC.
    case pace = "CFG.DFLT.PACE"
    /// CFG.DFLT.PACE with Chip and Terminal Authentication.
    case eacPACE = "CFG.DFLT.EACPACE"

    /// The document of this set, to be modified by a case before ``SimulatedDocument/chip()``.
    public func document() throws -> SimulatedDocument {
        var document = SimulatedDocument()
        switch self {
        case .bac:
            break
        case .eac, .eacPACE:
            document.authentication = try AuthenticationFixture.make(
                chipAuthentication: [.init(domainParameterID: 13, cipher: .aes128)])
        case .eacAA:
            document.authentication = try AuthenticationFixture.make(
                chipAuthentication: [.init(domainParameterID: 13, cipher: .aes128)],
                activeAuthentication: .ecdsa(curveID: 12, digest: .sha256, plain: true, withInfo: true))
        case .pace:
            break
        }
        if self == .pace || self == .eacPACE { document.access = .pace }
        return document
    }
}
