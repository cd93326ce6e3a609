public import MRTDCore
public import MRTDCrypto
public import MRTDSimulation
import MRTDVerification
import SwiftASN1

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

extension SpecimenDocument {
    /// The specimen with a JPEG 2000 (JP2) face followed by `padding` inside its ISO/IEC 19794-5
    /// record, EF.SOD hashing DG2 as so written and signed by the TEST-ONLY document signer: the
    /// portraits of NFCPassportReader 2.3.1 (docs/field-quirks.md, "Signed data"). Returns the files
    /// (EF.COM, EF.SOD, DG1, DG2) and the JP2 image without the padding.
    public static func withPaddedJPEG2000Face(padding: [UInt8]) throws -> (files: [LDSFile: [UInt8]], image: [UInt8]) {
        let plain = try make(face: .jpeg2000)
        let signer = try TestPKI.signer()
        var files = plain.files
        files[.dg(2)] = DG2.encode(image: plain.faceImage + padding, width: faceWidth, height: faceHeight, encoding: .iso19794_5)
        files[.sod] = try signer.signSOD(over: files)
        return (files, plain.faceImage)
    }
}
