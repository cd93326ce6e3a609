import Foundation
import MRTDCore
import MRTDCrypto
import MRTDProtocol
import MRTDSimulation
import MRTDTesting
import MRTDVerification
import SwiftASN1
import Testing

/// The lower tester of unit LDS_H (EF.SOD): a CFG.DFLT.* chip whose EF.SOD is rebuilt field by field
/// (``TestSignedData``, the LDSSecurityObject of ``FixtureDocument``) over the chip's own data groups
/// and signed by a TEST-ONLY chain of the case's algorithms (``SimulationPKI/Chain``), read through
/// the read engine with a trust store holding that chain's CSCA.
struct SODCase {
    typealias D = DERBuilder

    var profile: ConformanceProfile = .eac
    var chain: SimulationPKI.Chain
    /// The SignerInfo's signature scheme.
    var scheme: SignatureScheme
    /// The SignedData / SignerInfo digest algorithm.
    var cmsDigest: DigestAlgorithm
    /// The LDSSecurityObject (its `digest` is the hash algorithm of the data group hashes); its data
    /// groups are replaced by the chip's.
    var securityObject = FixtureDocument()
    var embedDSC = true
    /// Changes the chip's files before the SOD is built (a data group added, EF.COM changed).
    var prepare: (inout [LDSFile: [UInt8]]) -> Void = { _ in }
    /// Changes the SignedData before it is signed.
    var signed: (inout TestSignedData) -> Void = { _ in }
    /// Changes the chip's files after EF.SOD is in place (EF.SOD's own bytes, a data group).
    var finish: (inout [LDSFile: [UInt8]]) -> Void = { _ in }
    /// Replaces the whole LDSSecurityObject, given the chip's files.
    var rawSecurityObject: (([LDSFile: [UInt8]]) -> [UInt8])?
    /// The trust store's verification profile.
    var verification: VerificationProfile = .strict
    /// Also trust the DSC from the store (a SOD without embedded DSC, LDS_H_15).
    var dscInTrustStore = false

    /// A case signed by `chain` with `scheme`, data group hashes and CMS digest `digest`.
    init(chain: SimulationPKI.Chain, scheme: SignatureScheme, digest: DigestAlgorithm, lsoDigest: DigestAlgorithm? = nil) {
        self.chain = chain
        self.scheme = scheme
        cmsDigest = digest
        securityObject.digest = lsoDigest ?? digest
    }

    /// The plan's common frame for the negative cases (LDS_H_17–69): RSA 3072 CSCA, RSA 2048 DS,
    /// RSASSA-PSS with SHA-256 throughout, DS certificate in the SOD.
    static func standard(_ label: String, dsc: ((inout CertificateBuilder) -> Void)? = nil) throws -> SODCase {
        var chain = try SimulationPKI.Chain.make(
            cscaKey: rsa3072, dscKey: rsa2048, certificateScheme: pss(.sha256), label: label, country: country)
        if let dsc { chain = try chain.withDSC(dsc) }
        return SODCase(chain: chain, scheme: pss(.sha256), digest: .sha256)
    }

    /// The country of the chains: the issuing state of the sets' MRZ (the issuing-country check).
    static let country = "DE"
    static let rsa3072 = PrivateKey.Generation.rsa(bits: 3072)
    static let rsa2048 = PrivateKey.Generation.rsa(bits: 2048)
    static func ec(_ curve: String) -> PrivateKey.Generation { .ec(curve: curve, explicitParameters: false) }
    /// RSASSA-PSS with MGF1 of the same hash and a salt of the hash's length (RFC 4055 §3.1 practice).
    static func pss(_ digest: DigestAlgorithm) -> SignatureScheme {
        .rsaPSS(digest: digest, mgf1Digest: digest, saltLength: digest.hash([]).count)
    }

    /// The chip with its rebuilt EF.SOD.
    func chip() throws -> VirtualChipConfiguration {
        var chip = try profile.document().chip()
        prepare(&chip.files)
        var document = securityObject
        document.dataGroups = [:]
        for (file, bytes) in chip.files {
            if let number = file.dataGroupNumber { document.dataGroups[number] = bytes }
        }
        if let rawSecurityObject { document.rawSecurityObject = rawSecurityObject(chip.files) }
        var signedData = TestSignedData(
            eContentType: LDSSecurityObject.oid, eContent: document.securityObject(),
            certificates: embedDSC ? [chain.dsc] : [],
            signerIdentifier: .issuerAndSerialNumber(issuer: chain.dscTemplate.issuer, serial: chain.dscSerial),
            digest: cmsDigest, scheme: scheme)
        signed(&signedData)
        chip.files[.sod] = TLV.encode(tag: 0x77, value: try signedData.build(signedBy: chain.dscKey))
        finish(&chip.files)
        return chip
    }

    /// The operator's trust store: this case's CSCA (TEST material).
    func trustStore() throws -> TrustStore {
        var store = TrustStore()
        store.verificationProfile = verification
        _ = store.addAnchor(try Certificate(derEncoded: chain.csca), source: "conformance LDS_H (TEST ONLY)", isTestMaterial: true)
        if dscInTrustStore { store.addDocumentSigner(try Certificate(derEncoded: chain.dsc)) }
        return store
    }

    /// Reads the chip as an operator does (MRZ key, DG1, DG2, DG14) with ``trustStore()``.
    func read(dataGroups: [Int] = [1, 2, 14, 15]) async throws -> Conformance.Outcome {
        var options = try Conformance.options(dataGroups: dataGroups, trust: false)
        options.trustStore = try trustStore()
        return await Conformance.read(try chip(), options)
    }

    /// Reads and expects the plan's "inspection procedure successful": the document valid, passive
    /// authentication passed with the case's scheme and data group hash algorithm.
    /// A deviation of issued documents from the letter of the specifications (a DSC that lacks a
    /// field Doc 9303-12 makes mandatory, a SignerInfo version that does not fit its identifier, a v1
    /// LDSSecurityObject without LDSVersionInfo): the default profile (`strict`) fails it with
    /// `reason`, as the plan does; `tolerate-sod-deviations` verifies it and names it in `warning`
    /// (the matrix's second column).
    func expectNonConforming(
        _ reason: PassiveAuthenticationReason, warning: String = "dscNonConforming: ", sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        #expect(verification == .strict, sourceLocation: sourceLocation)
        _ = try await expectFailed(reason, sourceLocation: sourceLocation)
        var tolerant = self
        tolerant.verification = .tolerateSODDeviations
        try await tolerant.expectSuccessful(sourceLocation: sourceLocation)
        let again = try await tolerant.read().result
        Conformance.expectStatus(again, .valid, sourceLocation: sourceLocation)
        let warnings = again.checks.passiveAuthentication.warnings ?? []
        #expect(warnings.contains { $0.hasPrefix(warning) }, "\(warnings)", sourceLocation: sourceLocation)
    }

    func expectSuccessful(_ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let outcome = try await read()
        let pa = outcome.result.checks.passiveAuthentication
        #expect(pa.result == .passed, "\(pa.reason ?? "") \(pa.detail ?? "")", sourceLocation: sourceLocation)
        Conformance.expectStatus(outcome.result, .valid, sourceLocation: sourceLocation)
        #expect(pa.signatureAlgorithm == scheme.description, sourceLocation: sourceLocation)
        #expect(pa.digestAlgorithm == securityObject.digest.rawValue, sourceLocation: sourceLocation)
        #expect(pa.dataGroupHashes?["DG1"] == "valid", sourceLocation: sourceLocation)
        #expect(pa.dataGroupHashes?["DG2"] == "valid", sourceLocation: sourceLocation)
    }

    /// Reads and expects "inspection procedure failed": passive authentication failed for `reason`,
    /// the document `invalid`.
    @discardableResult
    func expectFailed(_ reason: PassiveAuthenticationReason, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Conformance.Outcome {
        let outcome = try await read()
        Self.expectFailed(outcome, reason, sourceLocation: sourceLocation)
        return outcome
    }

    static func expectFailed(_ outcome: Conformance.Outcome, _ reason: PassiveAuthenticationReason, sourceLocation: SourceLocation = #_sourceLocation) {
        let pa = outcome.result.checks.passiveAuthentication
        #expect(pa.result == .failed, "\(pa.reason ?? "") \(pa.detail ?? "")", sourceLocation: sourceLocation)
        #expect(pa.reason == reason.rawValue, "\(pa.detail ?? "")", sourceLocation: sourceLocation)
        Conformance.expectStatus(outcome.result, .invalid, sourceLocation: sourceLocation)
    }

    /// A LDSSecurityObject from its parts, each DER (for fields left out or misplaced).
    static func securityObject(_ parts: [UInt8]...) -> [UInt8] { D.sequence(parts) }

    /// The `DataGroupHash` entry of each data group in `files` under `digest`, by number.
    static func hashEntries(_ files: [LDSFile: [UInt8]], digest: DigestAlgorithm) -> [Int: [UInt8]] {
        var entries: [Int: [UInt8]] = [:]
        for (file, bytes) in files {
            if let number = file.dataGroupNumber { entries[number] = D.sequence(D.integer(number), D.octetString(digest.hash(bytes))) }
        }
        return entries
    }
}
