public import MRTDCore
import MRTDCrypto
import MRTDProtocol
public import MRTDVerification
import Synchronization

/// The default configuration sets of BSI TR-03105 Part 5.1 (chapter 4): the virtual chip as the
/// plan's lower tester. A conformance case starts from one of these and modifies it (a file, a key,
/// a status word, a certificate). TEST ONLY material throughout (the run's simulation PKI).
///
/// As chapter 4 prescribes: the plan's holder and MRZ in every set; Chip Authentication with
/// id-CA-ECDH-3DES-CBC-CBC on a 224-bit curve (brainpoolP224r1) and a single implicit key; PACE
/// id-PACE-ECDH-GM-3DES-CBC-CBC on brainpoolP256r1 (parameter ID 13); Active Authentication RSA with
/// SHA-256. Two deviations, both documented in docs/conformance.md: EF.SOD is signed by a TEST-ONLY
/// ECDSA P-256 document signer of country DE made once per run (the plan's RSASSA-PSS signer is
/// exercised by unit LDS_H's own cases), and the EAC trust point is the run's TEST-ONLY CVCA (`UTCVCA00002`) rather than the
/// plan's `DETESTCVCA00001`.
public enum ConformanceProfile: String, CaseIterable, Sendable {
    /// No access control: every file in plain.
    case plain = "CFG.DFLT.PLAIN"
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

    /// The plan's holder (TD3; document number C11T002JM, check digit 4), in DG1 and the access key.
    public static let mrz = "P<D<<MUSTERMANN<<ERIKA<<<<<<<<<<<<<<<<<<<<<<\nC11T002JM4D<<9608122F2310314<<<<<<<<<<<<<<<4"
    /// The Chip Authentication key of the EAC sets: ECDH, brainpoolP224r1, 3DES, no key reference.
    public static let chipAuthenticationKey = ChipAuthenticationKeySpec(domainParameterID: 11, cipher: .tripleDES)
    /// The one PACEInfo of EF.CardAccess in the PACE sets.
    public static let paceInfo = PACEInfo(
        protocol: PACEProtocol(mapping: .gm, keyAgreement: .ecdh, cipher: .tripleDES)!, parameterID: 13)

    /// The run's TEST-ONLY document signer of the sets: CSCA and DSC of country `DE`, the issuing
    /// state of ``mrz`` (a signer of another country fails the issuing-country check).
    public static func signer() throws -> DocumentSigner {
        try pki.withLock { signer throws -> DocumentSigner in
            if let signer { return signer }
            let made = try SimulationPKI.makeSigner(country: "DE")
            signer = made
            return made
        }
    }

    /// A trust store holding only ``signer()``'s CSCA, marked as test material.
    public static func trustStore() throws -> TrustStore {
        var store = TrustStore()
        _ = store.addAnchor(try signer().csca, source: "conformance (ephemeral, TEST ONLY)", isTestMaterial: true)
        return store
    }

    private static let pki = Mutex<DocumentSigner?>(nil)

    /// The access key of every set (the MRZ above).
    public static func mrzKey() throws -> MRZKey { try MRZ(mrz).accessKey }

    /// The document of this set, to be modified by a case before ``SimulatedDocument/chip()``.
    public func document() throws -> SimulatedDocument {
        var document = SimulatedDocument()
        document.mrz = Self.mrz
        document.signer = try Self.signer()
        switch self {
        case .bac, .pace:
            break
        case .plain:
            document.access = .plain
        case .eac, .eacPACE:
            document.authentication = try AuthenticationFixture.make(chipAuthentication: [Self.chipAuthenticationKey])
        case .eacAA:
            document.authentication = try AuthenticationFixture.make(
                chipAuthentication: [Self.chipAuthenticationKey], activeAuthentication: .rsa(bits: 2048, digest: .sha256))
        }
        if self == .pace || self == .eacPACE {
            document.access = .pace
            document.paceInfos = [Self.paceInfo]
        }
        return document
    }
}
