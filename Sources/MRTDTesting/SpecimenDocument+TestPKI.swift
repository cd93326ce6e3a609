public import MRTDCore
public import MRTDCrypto
public import MRTDSimulation

// The tests' specimen: signed by the fixed TEST-ONLY document signer of certs/test, so that
// `TestPKI.csca()` and `--trust certs/test` verify it. `--simulate` signs with its per-process
// `SimulationPKI` instead and never sees these keys.

extension TestPKI {
    /// The TEST-ONLY document signer of `certs/test`, with its CSCA.
    public static func signer() throws -> DocumentSigner {
        DocumentSigner(csca: try csca(), certificate: try dsc(), privateKey: try dscKey())
    }
}

extension SpecimenDocument {
    /// The specimen signed by the TEST-ONLY document signer (``TestPKI``).
    public static func make(
        face: FaceFormat = .jpeg,
        faceEncoding: FaceEncoding = .iso19794_5,
        digest: DigestAlgorithm = .sha256,
        extraDataGroups: [Int: [UInt8]] = [:]
    ) throws -> SpecimenDocument {
        try make(face: face, faceEncoding: faceEncoding, digest: digest, extraDataGroups: extraDataGroups, signer: TestPKI.signer())
    }

    /// EF.CardSecurity signed by the TEST-ONLY document signer.
    public static func cardSecurity(_ securityInfos: SecurityInfos, digest: DigestAlgorithm = .sha256) throws -> [UInt8] {
        try cardSecurity(securityInfos, digest: digest, signer: TestPKI.signer())
    }
}

extension AuthenticationFixture {
    /// The specimen passport with these DG14/DG15, signed by the TEST-ONLY document signer.
    public func specimen() throws -> SpecimenDocument {
        try specimen(signer: TestPKI.signer())
    }
}
